import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { convergeCommand } from "../support/converge-command.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, converge, e2eWorld, expectExit, liveRoutes, ORDERS_API, useE2eResources } from "./e2e-fixture.js";

/**
 * Ctrl-C during an apply, as terraform users expect it: the first SIGINT (or SIGTERM) lets the writes
 * under way finish and starts no other, the report says what was done and what was not started, the
 * lock is released and the exit is 130 (143); a second one stops at once. Nothing is left half-made:
 * every write the service received was answered and counted, and the next apply converges with no
 * duplicate.
 */

const { services, dirs } = useE2eResources();
const ROUTES = 24;

/** ROUTES routes of the demo world's orders API: 24 writes, two at a time, each taking the service's latency. */
async function estate(): Promise<string> {
  const dir = await dirs.make("interrupt");
  const routes = Array.from({ length: ROUTES }, (_, i) => `kind: Route\napi: ${ORDERS_API}\nspec: {routeKey: GET /interrupted-${String(i).padStart(2, "0")}}`);
  await writeFile(join(dir, "estate.yaml"), routes.join("\n---\n"));
  return dir;
}

interface Started {
  readonly child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** `converge apply -f . --auto-approve --parallelism 2 --lock FILE` against `service`, as a process the test can signal. */
function startApply(service: RunningService, dir: string, lock: string): Started {
  const converge = convergeCommand();
  const child = spawn(converge.file, [...converge.args, "apply", "-f", ".", "--auto-approve", "--parallelism", "2", "--lock", lock], {
    cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

/** Waits until the service has answered `writes` writes. */
async function untilWrites(service: RunningService, writes: number): Promise<void> {
  for (let waited = 0; service.requests.count({ writesOnly: true }) < writes; waited += 20) {
    expect(waited, `the apply made ${writes} writes`).toBeLessThan(30_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("Ctrl-C during converge apply", { timeout: E2E_TIMEOUT_MS }, () => {
  it.each([["SIGINT", 130], ["SIGTERM", 143]] as const)("%s lets the writes under way finish, starts no other, reports both, releases the lock, exits %i; the next apply converges", async (signal, exitCode) => {
    const service = await services.start(e2eWorld({ faults: { errorRate: 0, latencyMs: 150, dropAfterWriteRate: 0 } }));
    const dir = await estate();
    const lock = join(await dirs.make("interrupt-lock"), "converge.lock");
    const apply = startApply(service, dir, lock);
    await untilWrites(service, 4);
    apply.child.kill(signal);
    const result = await apply.done;

    expect(result.code, `${result.stdout}${result.stderr}`).toBe(exitCode);
    expect(result.stderr).toContain(`converge: ${signal === "SIGINT" ? "interrupt" : "SIGTERM"} received: the writes under way finish, no other starts (Ctrl-C again to stop at once)`);
    const summary = /^Apply interrupted: (\d+) done, 0 failed, (\d+) not started\.$/m.exec(result.stdout);
    expect(summary, result.stdout).not.toBeNull();
    const [done, notStarted] = [Number(summary![1]), Number(summary![2])];
    expect(done + notStarted).toBe(ROUTES);
    expect(notStarted).toBeGreaterThan(0);
    // every write the service received was one the apply saw answered: none half-made
    const created = service.requests.records().filter((record) => record.operation === "CreateRoute");
    expect(created.length).toBe(done);
    expect(created.every((record) => record.status === 201)).toBe(true);
    expect(existsSync(`${lock}.lock`)).toBe(false);
    expect(existsSync(lock)).toBe(false);

    const again = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(again, 0);
    expect(again.stdout).toContain(`Apply complete: ${notStarted} done, 0 failed.`);
    const keys = (await liveRoutes(service, ORDERS_API)).map((route) => route.routeKey).filter((key) => key.startsWith("GET /interrupted-"));
    expect(keys.sort()).toEqual(Array.from({ length: ROUTES }, (_, i) => `GET /interrupted-${String(i).padStart(2, "0")}`));
  });

  it("stops at once on a second Ctrl-C, saying a write under way may or may not have been made; the next apply converges with no duplicate", async () => {
    const service = await services.start(e2eWorld({ faults: { errorRate: 0, latencyMs: 1_000, dropAfterWriteRate: 0 } }));
    const dir = await estate();
    const lock = join(await dirs.make("interrupt-lock"), "converge.lock");
    const apply = startApply(service, dir, lock);
    await untilWrites(service, 2);
    apply.child.kill("SIGINT");
    for (let waited = 0; !apply.stderr().includes("interrupt received"); waited += 20) {
      expect(waited, "the first Ctrl-C was acknowledged").toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    apply.child.kill("SIGINT");
    const result = await apply.done;
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(130);
    expect(result.stderr).toContain("converge: stopped at once: a write under way may or may not have been made; apply again to converge");

    const again = await converge(service, ["apply", "-f", ".", "--auto-approve", "--lock", lock, "--lock-timeout", "30"], dir);
    expectExit(again, 0);
    const keys = (await liveRoutes(service, ORDERS_API)).map((route) => route.routeKey).filter((key) => key.startsWith("GET /interrupted-"));
    expect(keys).toHaveLength(ROUTES);
    expect(new Set(keys).size).toBe(ROUTES);
  });
});
