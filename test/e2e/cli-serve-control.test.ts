import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ControlClient } from "../../src/clients/index.js";
import { call } from "../support/http.js";
import { startServeProcess, type ServeProcess } from "../support/serve-process.js";
import { describeCliResult, runCli } from "../support/cli.js";
import { E2E_TIMEOUT_MS, TempDirs, expectExit } from "./e2e-fixture.js";

/**
 * `converge serve` and its control interface as a process (docs/manual/testing.md): the listening
 * line only once ready, then where the control interface stands; the admin token from a file or
 * CONVERGE_ADMIN_TOKEN (never printed), made and printed on a loopback address, off elsewhere without
 * one; the journal's size; and the CLI pointed at an isolated world by its endpoint and token.
 */

const dirs = new TempDirs();
const serving: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(serving.map((each) => each.stop("SIGTERM")));
  await dirs.cleanup();
});

async function serve(options: Parameters<typeof startServeProcess>[0] = {}): Promise<ServeProcess> {
  const started = await startServeProcess(options);
  serving.push(started);
  return started;
}

/** The second line of stdout, once printed. */
async function controlLine(process: ServeProcess): Promise<string> {
  for (let i = 0; i < 100 && process.stdout().split("\n").length < 3; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  return process.stdout().split("\n")[1]!;
}

const TOKEN_FROM_FILE = "an-admin-token-from-a-file-0001";
const TOKEN_FROM_ENV = "an-admin-token-from-the-env-0002";

describe("converge serve's control interface", { timeout: E2E_TIMEOUT_MS }, () => {
  it("prints the listening line once ready: the first request after it, health, answers ready; then the admin token it made", async () => {
    const started = await serve();
    const health = await call(started.url, "/_converge/health", { method: "GET", token: null });
    expect({ status: health.status, ready: health.json.status }).toEqual({ status: 200, ready: "ready" });
    expect(started.listeningLine).toBe(`listening on ${started.url}`);
    const line = await controlLine(started);
    const token = /^control interface: (\S+) \(admin token made for this run: (cvg-admin-\S+); give one with --admin-token FILE or CONVERGE_ADMIN_TOKEN to choose it\)$/.exec(line);
    expect(token?.[1], line).toBe(`${started.url}/_converge/`);
    const control = new ControlClient({ endpoint: started.url, adminToken: token![2]! });
    try {
      expect(await control.faults()).toEqual([]);
    } finally {
      await control.close();
    }
    // the demo world's lines follow, as before
    expect(started.stdout()).toContain("demo world (no --world given)");
  });

  it.each<[string, "file" | "env"]>([["--admin-token FILE", "file"], ["CONVERGE_ADMIN_TOKEN", "env"]])("takes the admin token from %s and never prints it", async (_label, from) => {
    const dir = await dirs.make("admin-token");
    const file = join(dir, "admin-token");
    await writeFile(file, `${TOKEN_FROM_FILE}\n`, { mode: 0o600 });
    const started = from === "file"
      ? await serve({ args: ["--admin-token", file], env: { CONVERGE_ADMIN_TOKEN: TOKEN_FROM_ENV } })
      : await serve({ env: { CONVERGE_ADMIN_TOKEN: TOKEN_FROM_ENV } });
    const token = from === "file" ? TOKEN_FROM_FILE : TOKEN_FROM_ENV;
    expect(await controlLine(started)).toBe(`control interface: ${started.url}/_converge/ (admin token from ${from === "file" ? `--admin-token ${file}` : "CONVERGE_ADMIN_TOKEN"})`);
    expect((await call(started.url, "/_converge/reset", { body: {}, token })).status).toBe(200);
    // the file wins over the environment: the other token is refused
    const other = await call(started.url, "/_converge/reset", { body: {}, token: from === "file" ? TOKEN_FROM_ENV : TOKEN_FROM_FILE });
    expect(other.status).toBe(403);
    await started.stop("SIGTERM");
    for (const text of [started.stdout(), started.stderr()]) {
      expect(text).not.toContain(TOKEN_FROM_FILE);
      expect(text).not.toContain(TOKEN_FROM_ENV);
    }
  });

  it("is off on an address other machines reach without an admin token, and says so", async () => {
    const started = await serve({ args: ["--host", "0.0.0.0"] });
    expect(await controlLine(started)).toMatch(/^control interface: off \(this address is reachable from other machines and no admin token was given: give one with --admin-token FILE or CONVERGE_ADMIN_TOKEN to turn it on\)$/);
    const url = started.url.replace("0.0.0.0", "127.0.0.1");
    expect((await call(url, "/_converge/health", { method: "GET", token: null })).json.status).toBe("ready");
    expect((await call(url, "/_converge/faults", { method: "GET", token: "cvg-admin-anything-at-all-00" })).status).toBe(403);
  });

  it("keeps as many requests in its journal as --journal-size says", async () => {
    const started = await serve({ args: ["--journal-size", "2"], env: { CONVERGE_ADMIN_TOKEN: TOKEN_FROM_ENV } });
    for (let i = 0; i < 4; i += 1) await call(started.url, "/listRegions", { body: {}, token: "demo-admin-token" });
    const journal = await call(started.url, "/_converge/requests", { method: "GET", token: TOKEN_FROM_ENV });
    expect({ held: journal.json.requests.length, size: journal.json.size, evicted: journal.json.evicted }).toEqual({ held: 2, size: 2, evicted: 2 });
  });

  it.each<[string, string[], Record<string, string>, RegExp]>([
    ["an admin token file that does not exist", ["--admin-token", "/nonexistent/admin-token"], {}, /^converge: --admin-token \/nonexistent\/admin-token cannot be read: ENOENT; expected a file holding the control interface's admin token$/m],
    ["an admin token too short to be safe", [], { CONVERGE_ADMIN_TOKEN: "short" }, /^converge: the admin token from CONVERGE_ADMIN_TOKEN has 5 characters: expected at least 16, so that it cannot be guessed$/m],
    ["a journal size below 0", ["--journal-size", "-1"], {}, /expected a number of requests from 0 to 1000000, received "-1"/],
  ])("refuses to start with %s, naming it", async (_label, args, env, message) => {
    const result = await runCli(["serve", "--port", "0", ...args], { env, timeoutMs: 20_000 });
    expect(result.code, describeCliResult(result)).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toContain("listening on");
  });
});

describe("the CLI pointed at an isolated world", { timeout: E2E_TIMEOUT_MS }, () => {
  it("applies into that world only, by its endpoint and token, as into any service", async () => {
    const started = await serve({ env: { CONVERGE_ADMIN_TOKEN: TOKEN_FROM_ENV } });
    const control = new ControlClient({ endpoint: started.url, adminToken: TOKEN_FROM_ENV });
    try {
      const world = await control.createWorld();
      const dir = await dirs.make("world-apply");
      await writeFile(join(dir, "contact.yaml"), [
        "kind: AlternateContact",
        "spec:",
        "  type: SECURITY",
        "  name: World Security",
        "  title: CISO",
        "  emailAddress: world-security@example.com",
        '  phoneNumber: "+1 555 0100"',
        "",
      ].join("\n"));
      const applied = await runCli(["apply", "-f", "contact.yaml", "--auto-approve"], { cwd: dir, env: { CONVERGE_ENDPOINT: started.url, CONVERGE_TOKEN: world.token() } });
      expectExit(applied, 0);
      expect((await control.requests({ write: true })).map((entry) => [entry.world, entry.operation, entry.status])).toEqual([[world.id, "PutAlternateContact", 200]]);
      const inServerWorld = await call(started.url, "/getAlternateContact", { body: { AlternateContactType: "SECURITY" }, token: "demo-admin-token" });
      expect(inServerWorld.status).toBe(404);
      const inWorld = await call(started.url, "/getAlternateContact", { body: { AlternateContactType: "SECURITY" }, token: world.token() });
      expect(inWorld.json.AlternateContact.EmailAddress).toBe("world-security@example.com");
      await world.drop();
    } finally {
      await control.close();
    }
  });
});
