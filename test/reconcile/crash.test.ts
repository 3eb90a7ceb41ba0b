import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { LoadedDocument } from "../../src/desired/load.js";
import { mulberry32 } from "../../src/service/faults.js";
import { describeRun, runCli, startCli, waitUntil, type CliRun } from "./support/cli-process.js";
import { ESTATE_APIS, estateFiles } from "./support/estate.js";
import { expectEstateConverged } from "./support/estate-checks.js";
import { withWorld, type WorldOptions } from "../support/world.js";
import { ADMIN_RETRY, reconcileWorld, removeDirectory, writeAndLoad } from "./support/reconcile-harness.js";

/**
 * Crash safety: `converge apply` killed with SIGKILL at a random point, then run again, exits 0 and
 * converges with no duplicate integration or route. The kill points come from a seeded PRNG; set
 * CONVERGE_CRASH_SEED to replay a run (the seed is printed and named in every failure).
 */
const SEED = Number(process.env.CONVERGE_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = 10;
const LATENCY_MS = 10;
const APPLY_ARGS = (directory: string) => ["apply", "-f", directory, "--auto-approve", "--parallelism", "4"];

const ESTATE_WORLD: WorldOptions = {
  // latency so that an apply lasts long enough for a kill to land among its writes; Regions settle
  // at once, so that the apply's time goes to its writes rather than to polling a transition
  world: reconcileWorld({ apis: ESTATE_APIS, regionTransitionMs: 0 }),
  faults: { errorRate: 0, dropAfterWriteRate: 0, latencyMs: LATENCY_MS },
  recordRequests: true,
  retry: ADMIN_RETRY,
};

describe(`apply killed with SIGKILL at a random point (CONVERGE_CRASH_SEED=${SEED})`, () => {
  let documents: LoadedDocument[];
  let directory: string;
  /**
   * A whole apply of the estate on this machine, from its first request (node's start-up excluded) to
   * its last write (the verifying read and the exit excluded): the span where a kill can interrupt it.
   */
  let typicalApplyMs = 0;
  let totalWrites = 0;
  const random = mulberry32(SEED);
  const killedAfterWrites: number[] = [];

  beforeAll(async () => {
    console.info(`crash test seed: CONVERGE_CRASH_SEED=${SEED}`);
    ({ documents, directory } = await writeAndLoad(estateFiles()));
    await withWorld(ESTATE_WORLD, async ({ service }) => {
      const child = startCli(APPLY_ARGS(directory), service.url);
      await waitUntil(() => service.requests.count() > 0, child.done);
      const firstRequestAt = performance.now();
      let lastWriteAt = firstRequestAt;
      await waitUntil(() => {
        const writes = service.requests.count({ writesOnly: true });
        if (writes !== totalWrites) [totalWrites, lastWriteAt] = [writes, performance.now()];
        return false;
      }, child.done);
      const run = await child.done;
      expect(run.code, `calibration apply: ${describeRun(run)}`).toBe(0);
      typicalApplyMs = lastWriteAt - firstRequestAt;
      expect(service.requests.count({ writesOnly: true }), "writes of a whole apply, all seen").toBe(totalWrites);
      expect(totalWrites, "writes of a whole apply").toBeGreaterThan(30);
    });
  });

  afterAll(async () => {
    console.info(`crash test seed ${SEED}: a whole apply takes ${Math.round(typicalApplyMs)} ms and ${totalWrites} writes; kills landed after ${killedAfterWrites.join(", ")} writes answered`);
    await removeDirectory(directory);
  });

  test.each(Array.from({ length: RUNS }, (_, run) => run))("run %i: the next apply converges without duplicates", async (run) => {
    // even runs: a random delay within a typical apply, from its first request (node's start-up would
    // swallow a delay from the spawn); odd runs: right after a random number of its writes, so that
    // kills also land among in-flight creates however fast this machine is
    const byWrites = run % 2 === 1;
    const killAfterMs = byWrites ? Math.floor(random() * LATENCY_MS) : Math.round(random() * typicalApplyMs);
    const killAfterWrites = byWrites ? 1 + Math.floor(random() * (totalWrites - 5)) : 0;
    const context = `seed ${SEED} run ${run} (kill ${killAfterMs} ms after ${byWrites ? `write ${killAfterWrites}` : "the first request"}; a whole apply ~${Math.round(typicalApplyMs)} ms, ${totalWrites} writes)`;
    await withWorld(ESTATE_WORLD, async ({ service, clients }) => {
      const child = startCli(APPLY_ARGS(directory), service.url);
      const started = byWrites
        ? await waitUntil(() => service.requests.count({ writesOnly: true }) >= killAfterWrites, child.done)
        : await waitUntil(() => service.requests.count() > 0, child.done);
      if (started) {
        await new Promise((resolve) => setTimeout(resolve, killAfterMs));
        child.kill();
      }
      const writesAtKill = service.requests.count({ writesOnly: true });
      const killedRun: CliRun = await child.done;
      if (killedRun.killed) {
        expect(killedRun.signal, `${context}: ${describeRun(killedRun)}`).toBe("SIGKILL");
        killedAfterWrites.push(writesAtKill);
      } else {
        // it finished before the kill: then it must have succeeded on its own
        expect(killedRun.code, `${context}: ${describeRun(killedRun)}`).toBe(0);
        killedAfterWrites.push(totalWrites);
      }

      const rerun = await runCli(APPLY_ARGS(directory), service.url);
      expect(rerun.code, `${context}: the apply after the kill: ${describeRun(rerun)}`).toBe(0);
      await expectEstateConverged(documents, clients, context);
    });
  });

  test("kills landed in the middle of applies", () => {
    expect(killedAfterWrites).toHaveLength(RUNS);
    const midApply = killedAfterWrites.filter((writes) => writes > 0 && writes < totalWrites);
    // at least the runs killed after a number of writes interrupted an apply among its writes
    expect(midApply.length, `seed ${SEED}: writes answered at each kill ${JSON.stringify(killedAfterWrites)} of ${totalWrites}`).toBeGreaterThanOrEqual(RUNS / 2);
  });
});
