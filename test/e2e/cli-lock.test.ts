import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/cli/lock.js";
import { convergeCommand } from "../support/converge-command.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, converge, e2eWorld, expectExit, useE2eResources } from "./e2e-fixture.js";

/**
 * `apply --lock FILE`: runs sharing FILE take turns; a run that cannot take the lock in
 * --lock-timeout gives up naming the holder and sends nothing; a lock left by a killed process is
 * taken over once stale; a path holding someone's file is never used as a lock.
 */

const { services, dirs } = useE2eResources();

/** A small estate of the demo world's orders API, so that an apply has something to write. */
async function estate(): Promise<string> {
  const dir = await dirs.make("lock");
  await writeFile(join(dir, "estate.yaml"), [
    "kind: Integration\nname: locked\napi: a1b2c3d4e5\nspec: {integrationType: HTTP_PROXY, integrationUri: \"https://locked.example/api\", integrationMethod: ANY, payloadFormatVersion: \"1.0\"}",
    "kind: Route\napi: a1b2c3d4e5\nspec: {routeKey: GET /locked, target: {integration: locked}}",
  ].join("\n---\n"));
  return dir;
}

describe("apply --lock FILE", { timeout: E2E_TIMEOUT_MS }, () => {
  it("gives up after --lock-timeout, naming the holder, and sends nothing", async () => {
    const service = await services.start();
    const dir = await estate();
    const file = join(await dirs.make("locks"), "converge.lock");
    const held = await acquireLock(file, { timeoutMs: 0, command: "converge apply -f production/" });
    try {
      expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ pid: process.pid, host: hostname(), command: "converge apply -f production/" });
      const applied = await converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", file, "--lock-timeout", "1"], dir);
      expectExit(applied, 1);
      expect(applied.stderr).toMatch(new RegExp(`could not take the lock ${file} within 1 s \\(--lock-timeout\\): it is held by "converge apply -f production/" \\(pid ${process.pid} on ${hostname()}, since \\d{4}-\\d\\d-\\d\\dT[^,]+, last refreshed \\d+ s ago\\)\\. Nothing was applied`));
      expect(service.requests.count()).toBe(0);
    } finally {
      await held.release();
    }
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("waits while the lock is held, then applies holding it, and releases it", async () => {
    const service = await services.start();
    const dir = await estate();
    const file = join(await dirs.make("locks"), "converge.lock");
    const held = await acquireLock(file, { timeoutMs: 0, command: "someone else" });
    const applying = converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", file, "--lock-timeout", "30"], dir);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(service.requests.count(), "requests sent while the lock was held by someone else").toBe(0);
    await held.release();
    const applied = await applying;
    expectExit(applied, 0);
    expect(service.requests.count({ operation: "CreateIntegration", status: 201 })).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("takes over the lock of a killed apply once it is stale (10 s without a refresh); until then, the timeout message says the holder is gone", async () => {
    const slow = await services.start(e2eWorld({ faults: { latencyMs: 20_000 } }));
    const service = await services.start();
    const dir = await estate();
    const file = join(await dirs.make("locks"), "converge.lock");
    const command = convergeCommand();
    const child = spawn(command.file, [...command.args, "apply", "-f", ".", "--auto-approve", "--lock", file], {
      cwd: dir, stdio: "ignore", env: { PATH: process.env.PATH ?? "", CONVERGE_ENDPOINT: slow.url, CONVERGE_TOKEN: ADMIN_TOKEN },
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    for (let waited = 0; !existsSync(`${file}.lock`) || !(await readFile(file, "utf8").catch(() => "")).includes(String(child.pid)); waited += 50) {
      expect(waited, "the first apply took the lock").toBeLessThan(15_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGKILL");
    await exited;
    expect(existsSync(`${file}.lock`), "a killed process leaves its lock behind").toBe(true);

    const giveUp = await converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", file, "--lock-timeout", "1"], dir);
    expectExit(giveUp, 1);
    expect(giveUp.stderr).toContain(`(pid ${child.pid} on ${hostname()}`);
    expect(giveUp.stderr).toContain("that process is no longer running: the lock is taken over once 10 s pass without a refresh");

    const started = performance.now();
    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", file, "--lock-timeout", "30"], dir);
    expectExit(applied, 0);
    expect(performance.now() - started).toBeLessThan(25_000);
    expect(service.requests.count({ operation: "CreateIntegration", status: 201 })).toBe(1);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("refuses a --lock path that holds a file of someone else's, and leaves it alone", async () => {
    const service = await services.start();
    const dir = await estate();
    const file = join(dir, "estate.yaml");
    const before = await readFile(file, "utf8");
    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", file], dir);
    expectExit(applied, 1);
    expect(applied.stderr).toContain(`--lock ${file} is a file that is not a converge lock record`);
    expect(await readFile(file, "utf8")).toBe(before);
    expect(service.requests.count()).toBe(0);
  });

  it("rejects a --lock-timeout that is not a number of seconds", async () => {
    const service = await services.start();
    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", "x.lock", "--lock-timeout", "soon"], await estate());
    expectExit(applied, 1);
    expect(applied.stderr).toContain('expected seconds from 0 to 86400, received "soon"');
  });
});
