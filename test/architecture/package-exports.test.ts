import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../src/provider/runtime/handshake.js";
import { runProcess } from "../support/run-process.js";

/**
 * What a user gets from `npm install converge`: the package is packed as npm would publish it
 * (`npm pack`, from the build `npm test` made first), installed into a new project, and every entry
 * point of package.json's `exports` is imported there by name, and the `converge` bin runs. An export
 * that names a file the package does not ship fails here.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const TIMEOUT_MS = 180_000;

/** A few names each entry point must export (what the README and docs/manual/ show users importing). */
const EXPECTED: Readonly<Record<string, ReadonlyArray<string>>> = {
  "./service": ["startService", "DEMO_WORLD", "parseWorld", "loadWorldFile"],
  "./clients": ["createClients", "Credentials", "AccountClient", "GatewayClient", "collect", "isApiError", "isNotFound", "ControlClient", "TestWorld"],
  "./contract": ["ACCOUNT_OPERATIONS", "GATEWAY_OPERATIONS", "Route", "Integration", "PutAlternateContactRequest", "routeProtocolIssues", "fillPath"],
  /** The contract's name until 0.2 (an alias kept for one release, so that imports of converge/spec keep working). */
  "./spec": ["ACCOUNT_OPERATIONS", "GATEWAY_OPERATIONS", "Route", "Integration", "PutAlternateContactRequest", "routeProtocolIssues", "fillPath"],
  "./constructs": ["ConvergeConfig", "AlternateContact", "Integration", "Route", "RegionOptIn", "Api"],
  "./testing": ["startTestService", "attachTestService", "ControlClient", "TestWorld"],
};

function env(): Record<string, string> {
  return { ...(process.env as Record<string, string>), npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
}

describe("the packed package", { timeout: TIMEOUT_MS }, () => {
  let work: string;
  let project: string;
  let exportsField: Record<string, string>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "converge-pack-"));
    project = join(work, "project");
    exportsField = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).exports;
    const packed = await runProcess("npm", ["pack", "--ignore-scripts", "--pack-destination", work], { cwd: ROOT, env: env(), timeoutMs: TIMEOUT_MS });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = (await readdir(work)).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    await runProcess("mkdir", [project], { env: env() });
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "a-user-project", version: "1.0.0", private: true, type: "module" }));
    // --prefer-offline: the dependencies come from npm's cache, which `npm ci` filled
    const installed = await runProcess("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-package-lock", join(work, tarball!)], { cwd: project, env: env(), timeoutMs: TIMEOUT_MS });
    expect(installed.code, installed.stderr).toBe(0);
  }, TIMEOUT_MS);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("has an expectation for every entry point package.json exports (the check below covers them all)", () => {
    expect(Object.keys(exportsField).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED).map(([subpath, names]) => [`converge${subpath.slice(1)}`, names] as const))("imports %s by its package name in a user's project, with the names it promises", async (specifier, names) => {
    const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m)));`;
    const result = await runProcess(process.execPath, ["--input-type=module", "-e", script], { cwd: project, env: env(), timeoutMs: 60_000 });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining([...names]));
  });

  it("installs the installed package's terraform provider, which starts and completes go-plugin's handshake", async () => {
    const home = join(work, "home");
    const installed = await runProcess(join(project, "node_modules/.bin/converge"), ["provider", "install"], { cwd: project, env: { ...env(), HOME: home } });
    expect(installed.code, installed.stderr).toBe(0);
    const executable = installed.stdout.split("\n")[1]!.trim();
    expect(await readFile(executable, "utf8")).toContain(join(project, "node_modules/converge/dist/src/provider/main.js"));
    await readFile(join(project, "node_modules/converge/dist/src/provider/provider-schemas.json"), "utf8");
    // started as terraform starts it (without TLS, which go-plugin allows): the handshake line, then it is stopped
    const child = spawn(executable, [], { env: { ...env(), [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "6" }, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const line = await new Promise<string>((resolveLine, reject) => {
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          if (out.includes("\n")) resolveLine(out.split("\n")[0]!);
        });
        child.once("exit", (code) => reject(new Error(`the provider exited ${code} before its handshake line`)));
      });
      expect(line).toMatch(/^1\|6\|unix\|[^|]+\/converge-plugin-[A-Za-z0-9]{6}\/plugin\.sock\|grpc\|$/);
    } finally {
      // SIGTERM: the provider removes its socket's directory as it exits
      child.kill("SIGTERM");
    }
  });

  it("runs the converge bin of the installed package", async () => {
    const result = await runProcess(join(project, "node_modules/.bin/converge"), ["schema"], { cwd: project, env: env(), timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty("$schema");
  });
});
