import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { cycleAfter, eventually, startReconcileProcess, type ReconcileProcess, type ReconcileStatus } from "../support/reconcile-process.js";
import { startServeProcess, type ServeProcess } from "../support/serve-process.js";
import { FILES, reconcilerWorld } from "../reconciler/support/reconciler-harness.js";

/**
 * `converge reconcile` against an endpoint that fails: the world's faults (errors, latency,
 * throttling) for a while, then `converge serve` restarted without them; then the service killed
 * and restarted. The loop never exits, backs off (its requests per minute stay bounded), reports
 * unknown rather than in sync, and converges within two intervals once the service answers again.
 * FAULT_SECONDS under faults (RECONCILE_FAULT_SECONDS to run longer, e.g. 300 by hand).
 */

const FAULT_SECONDS = Number(process.env.RECONCILE_FAULT_SECONDS ?? 120);
const INTERVAL_SECONDS = 2;
const RETRY_SECONDS = 0.5;
/** Requests of one cycle of these documents: 12 reads (plan's) and at most 4 writes, each tried at most 4 times (the clients' retry policy). */
const MOST_REQUESTS_PER_CYCLE = (12 + 4) * 4;
/**
 * Requests a minute under these faults, the stated bound: every run so far sent 242–282 a minute
 * (over 2 and over 5 minutes): from the third failed cycle in a row the backoff waits at least a
 * second, a throttled cycle the whole interval, and the clients slow down on 429s. The bound is about
 * twice that, so a loop that backed off far less fails here.
 */
const MOST_REQUESTS_PER_MINUTE = 600;

let root: string;
const processes: Array<ServeProcess | ReconcileProcess> = [];
afterAll(async () => {
  await Promise.all(processes.map((process) => process.stop("SIGKILL")));
  if (root) await rm(root, { recursive: true, force: true });
});

async function requestsSent(reconcile: ReconcileProcess): Promise<number> {
  const text = (await reconcile.request("/metrics")).text;
  return text.split("\n").filter((line) => line.startsWith("converge_requests_total{")).reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

/** The first cycle after cycle `after` that ends in success. */
function successAfter(reconcile: ReconcileProcess, after: number): Promise<ReconcileStatus> {
  return eventually(`a cycle in success after cycle ${after}`, async () => {
    const status = await reconcile.status();
    return status.last && status.last.cycle > after && status.last.result === "success" ? status : undefined;
  }, 30_000);
}

describe("converge reconcile when the endpoint fails", () => {
  it("backs off, reports unknown and never exits under faults, and converges within two intervals once they stop or the service is back", async () => {
    root = await mkdtemp(join(tmpdir(), "converge-reconcile-faults-"));
    const desired = join(root, "desired");
    await mkdir(desired);
    for (const [file, text] of Object.entries({ "api.yaml": FILES.api, "routes.yaml": FILES.routes, "contact.yaml": FILES.contact })) await writeFile(join(desired, file), text);
    const stateFile = join(root, "state.jsonl");
    const faulty = join(root, "faulty.json");
    const healthy = join(root, "healthy.json");
    await writeFile(faulty, JSON.stringify(reconcilerWorld({ faults: { errorRate: 0.7, latencyMs: 30, dropAfterWriteRate: 0.2 }, throttle: { ratePerSecond: 2, burst: 3 } })));
    await writeFile(healthy, JSON.stringify(reconcilerWorld()));

    let serve = await startServeProcess({ worldFile: faulty, stateFile });
    processes.push(serve);
    const port = Number(new URL(serve.url).port);
    const env = { CONVERGE_ENDPOINT: serve.url, CONVERGE_TOKEN: "admin-token" };
    const reconcile = await startReconcileProcess(["-f", desired, "--interval", `${INTERVAL_SECONDS}s`, "--retry-interval", `${RETRY_SECONDS}s`, "--jitter", "0"], { env });
    processes.push(reconcile);

    const seen: ReconcileStatus[] = [];
    const started = Date.now();
    const sentBefore = await requestsSent(reconcile);
    while (Date.now() - started < FAULT_SECONDS * 1000) {
      await sleep(1000);
      seen.push(await reconcile.status());
      expect(reconcile.child.exitCode).toBeNull();
    }
    const minutes = (Date.now() - started) / 60_000;
    const sent = (await requestsSent(reconcile)) - sentBefore;
    const cycles = (await reconcile.status()).cycle;
    const failedCycles = await reconcile.metric('converge_reconcile_cycles_total{result="error"}');
    // backing off: never more cycles than one per half the first retry, each with at most its reads and writes retried
    const mostCycles = (FAULT_SECONDS + 5) / (RETRY_SECONDS / 2);
    expect(cycles).toBeLessThan(mostCycles);
    expect(sent).toBeLessThan(cycles * MOST_REQUESTS_PER_CYCLE);
    expect(sent / minutes).toBeLessThan(MOST_REQUESTS_PER_MINUTE);
    expect(failedCycles).toBeGreaterThan(0);
    const unknownSeen = seen.some((status) => status.last?.result === "error" && (status.last.summary.unknown ?? 0) > 0);
    expect(unknownSeen).toBe(true);
    // never a false "in sync": a cycle that failed does not end in success
    expect(seen.every((status) => status.last?.result !== "success" || status.last.summary.unknown === 0)).toBe(true);
    process.stdout.write(`under faults: ${Math.round(sent / minutes)} requests a minute over ${minutes.toFixed(1)} min, ${cycles} cycles, ${failedCycles} failed\n`);

    // the faults stop: the same service and state, restarted without them
    await serve.stop("SIGTERM");
    serve = await startServeProcess({ worldFile: healthy, stateFile, port });
    processes.push(serve);
    const restartedAt = (await reconcile.status()).cycle;
    const converged = await successAfter(reconcile, restartedAt);
    expect(converged.last!.cycle).toBeLessThanOrEqual(restartedAt + 2);
    expect((await runCli(["plan", "-f", desired], { env })).code).toBe(0);

    // the service killed, and restarted a while later
    await serve.stop("SIGKILL");
    const killedAt = (await reconcile.status()).cycle;
    await cycleAfter(reconcile, killedAt + 2);
    const down = await reconcile.status();
    expect(down.last).toMatchObject({ result: "error" });
    expect(down.last!.summary["in-sync"] ?? 0).toBe(0);
    serve = await startServeProcess({ worldFile: healthy, stateFile, port });
    processes.push(serve);
    const backAt = (await reconcile.status()).cycle;
    const back = await successAfter(reconcile, backAt);
    expect(back.last!.cycle).toBeLessThanOrEqual(backAt + 2);
    expect(reconcile.child.exitCode).toBeNull();
  }, (FAULT_SECONDS + 120) * 1000);
});
