import { readFile, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startService, type RunningService } from "../../../src/service/index.js";
import { runProcess } from "../../support/run-process.js";
import { startReconcileProcess, type CycleEvent, type ReconcileProcess } from "../../support/reconcile-process.js";
import { inAlternatingOrder } from "../alternating.js";
import { ESTATE_TOKEN, estateWorld, LOWER_BOUND_CALLS, writeEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { inspectorUrlOf, memoryAfterFullGc, openInspectorSession } from "../inspector-session.js";
import { runCli } from "../run-cli.js";
import { readsByOperation, totalOf } from "../service-reads.js";
import { median } from "../stats.js";

/** The world of drift-estate: 10 ms latency and a throttle of 1000/s (burst 100) per identity and operation. */
const LATENCY_MS = 10;
const THROTTLE = { ratePerSecond: 1000, burst: 100 };
const PARALLELISM = 64;
/** The client limit of drift-estate: the throttle's rate with 80% of its burst. */
const LIMIT = "1000:80";
const RATIO_GOAL = 0.7;
/** Memory: after EARLY cycles against after LATE, each the median of the WINDOW readings that end there. */
const EARLY = 20;
const LATE = 200;
const WINDOW = 10;
const RSS_GOAL_MB = 10;
const MB = 1e6;

/** Two windows of cycles to compare: the `size` cycles ending at `early`, and those ending at `late`. */
interface Windows {
  readonly early: number;
  readonly late: number;
  readonly size: number;
}

/** Where a forced GC is read (and the goal is judged): the WINDOW cycles ending at EARLY and at LATE. */
const GC_WINDOWS: Windows = { early: EARLY, late: LATE, size: WINDOW };
/**
 * Where RSS is compared as it is: 20 cycles each, far from the cycles a GC is forced after (a forced
 * GC leaves the next readings low), and late enough that the heap has grown to its working size.
 */
const AS_IS_WINDOWS: Windows = { early: 50, late: LATE - WINDOW - 10, size: 20 };

/** Whether a full GC is forced after `cycle` (it is in one of GC_WINDOWS' windows). */
const inWindow = (cycle: number) => [GC_WINDOWS.early, GC_WINDOWS.late].some((last) => cycle > last - GC_WINDOWS.size && cycle <= last);

/** What the kernel says of a process: resident memory (VmRSS) and CPU time used so far (user + system). */
interface ProcessUsage {
  readonly rssBytes: number;
  readonly cpuMs: number;
}

async function usageOf(pid: number, msPerTick: number): Promise<ProcessUsage> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  // the fields after the command's name, which is in parentheses: utime and stime are fields 14 and 15
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { rssBytes: rssKiB * 1024, cpuMs: (Number(fields[11]) + Number(fields[12])) * msPerTick };
}

/** One `converge drift` of the estate, a process from start to exit. */
interface DriftRun {
  readonly wallMs: number;
  readonly cpuMs: number | undefined;
  readonly reads: number;
  readonly byOperation: Readonly<Record<string, number>>;
  readonly throttled: number;
  readonly code: number | null;
  readonly maxRssMiB: number | undefined;
}

/** One no-change cycle of the running reconciler, triggered by `POST /reconcile`. */
interface CycleRun {
  readonly cycle: number;
  /** The cycle's own duration (its log line: from loading the desired state to its record). */
  readonly durationMs: number;
  /** From the POST to the cycle's log line read by the bench. */
  readonly wallMs: number;
  /** CPU time the reconciler process used meanwhile (/proc, 10 ms ticks). */
  readonly cpuMs: number;
  readonly reads: number;
  readonly byOperation: Readonly<Record<string, number>>;
  readonly requests: number;
  readonly throttled: number;
  readonly result: CycleEvent["result"];
  readonly inSync: number;
}

/** The reconciler's memory after a cycle: RSS as it is, and (in the windows) after a forced full GC. */
interface MemoryReading {
  readonly cycle: number;
  readonly rssBytes: number;
  readonly afterGc?: { readonly rssBytes: number; readonly heapUsedBytes: number } | undefined;
}

async function driftOnce(service: RunningService, directory: string, env: Record<string, string>): Promise<DriftRun> {
  service.requests.reset();
  const run = await runCli(["drift", "-f", directory, "--output", "json", "--parallelism", String(PARALLELISM), "--rate-limit", LIMIT], env);
  const byOperation = readsByOperation(service);
  return { wallMs: run.wallMs, cpuMs: run.cpuMs, reads: totalOf(byOperation), byOperation, throttled: service.requests.count({ status: 429 }), code: run.code, maxRssMiB: run.maxRssMiB };
}

async function cycleOnce(service: RunningService, reconciler: ReconcileProcess, msPerTick: number): Promise<CycleRun> {
  service.requests.reset();
  const before = await usageOf(reconciler.child.pid!, msPerTick);
  const started = performance.now();
  const event = await reconciler.reconcileNow(120_000);
  const wallMs = performance.now() - started;
  const after = await usageOf(reconciler.child.pid!, msPerTick);
  const byOperation = readsByOperation(service);
  return {
    cycle: event.cycle, durationMs: event.durationMs, wallMs, cpuMs: after.cpuMs - before.cpuMs, reads: totalOf(byOperation), byOperation,
    requests: event.requests, throttled: service.requests.count({ status: 429 }), result: event.result, inSync: event.summary["in-sync"] ?? 0,
  };
}

const ms = (value: number) => `${Math.round(value).toLocaleString("en-US")} ms`;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const verdict = (met: boolean) => (met ? "met" : "NOT met");
const operations = (counts: Readonly<Record<string, number>> | undefined) => Object.entries(counts ?? {}).map(([operation, count]) => `${operation} ${count}`).join(", ");

/**
 * Issue 49: a no-change cycle of the 5,440-document estate in a running `converge reconcile`
 * (a process, its cycles triggered by `POST /reconcile`, timed by the cycle's log line) against
 * `converge drift` of the same estate as a one-shot process, alternating which goes first, with the
 * reads each makes; then the reconciler's resident memory after 20 cycles and after 200.
 */
export const reconcileLoop: BenchExperiment = {
  name: "reconcile-loop",
  description: `a no-change cycle of the 5,440-document estate in a running converge reconcile vs one-shot converge drift; RSS after ${EARLY} and ${LATE} cycles`,
  async run({ rounds }) {
    const loadBefore = loadavg()[0]!;
    const directory = await mkdtemp(join(tmpdir(), "converge-reconcile-loop-"));
    const service = await startService({ port: 0, world: estateWorld({ latencyMs: LATENCY_MS, throttle: THROTTLE }) });
    const env = { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ESTATE_TOKEN };
    const reconcileArgs = ["-f", directory, "--interval", "24h", "--jitter", "0", "--parallelism", String(PARALLELISM), "--rate-limit", LIMIT];
    const msPerTick = 1000 / Number((await runProcess("getconf", ["CLK_TCK"], { env: { PATH: process.env.PATH ?? "" } })).stdout.trim() || 100);
    const problems: string[] = [];
    const drifts: DriftRun[] = [];
    const cycles: CycleRun[] = [];
    const memory: MemoryReading[] = [];
    const running: ReconcileProcess[] = [];
    const start = async (nodeArgs?: string[]) => {
      const reconciler = await startReconcileProcess(reconcileArgs, { env, logFormat: "json", ...(nodeArgs ? { nodeArgs } : {}) });
      running.push(reconciler);
      return reconciler;
    };
    let documentCount = 0;
    let firstCycle: CycleEvent | undefined;
    try {
      documentCount = await writeEstate(directory);
      process.stderr.write(`reconcile-loop: ${documentCount} documents; initial apply…\n`);
      const apply = await runCli(["apply", "-f", directory, "--auto-approve", "--parallelism", String(PARALLELISM), "--rate-limit", LIMIT], env);
      if (apply.code !== 0) problems.push(`initial apply exited ${apply.code}: ${apply.stderr.slice(0, 400)}`);

      const timed = await start();
      firstCycle = await timed.cycle(1, 120_000);
      // one unmeasured run of each: the file system cache holds the estate, the reconciler has run a triggered cycle
      await driftOnce(service, directory, env);
      await cycleOnce(service, timed, msPerTick);
      for (let round = 0; round < rounds; round += 1) {
        const [drift, cycle] = await inAlternatingOrder(round, () => driftOnce(service, directory, env), () => cycleOnce(service, timed, msPerTick));
        drifts.push(drift);
        cycles.push(cycle);
        if (drift.code !== 0) problems.push(`round ${round + 1}: drift exited ${drift.code} (expected 0, in sync)`);
        if (cycle.result !== "success" || cycle.inSync !== documentCount) problems.push(`round ${round + 1}: cycle ${cycle.cycle} ended ${cycle.result} with ${cycle.inSync} in sync (expected success, ${documentCount})`);
        process.stderr.write(`reconcile-loop: round ${round + 1}/${rounds}: drift ${ms(drift.wallMs)} (${drift.reads} reads, ${drift.throttled} throttled); cycle ${cycle.cycle} ${ms(cycle.durationMs)}, ${ms(cycle.wallMs)} from the trigger (${cycle.reads} reads, ${cycle.throttled} throttled): ${(cycle.durationMs / drift.wallMs).toFixed(2)}×\n`);
      }
      await stopped(timed, problems);

      process.stderr.write(`reconcile-loop: a second reconciler (--inspect), cycles 1 to ${LATE} for memory…\n`);
      const measured = await start(["--inspect=127.0.0.1:0"]);
      memory.push(...await cyclesForMemory(measured, msPerTick, problems));
      await stopped(measured, problems);
    } finally {
      await Promise.all(running.map((reconciler) => reconciler.stop("SIGKILL")));
      await service.close();
      await rm(directory, { recursive: true, force: true });
    }
    return report({ rounds, documentCount, loadBefore, drifts, cycles, memory, firstCycle, problems });
  },
};

/** Stops a reconciler with SIGTERM, as its supervisor would: it must exit 0. */
async function stopped(reconciler: ReconcileProcess, problems: string[]): Promise<void> {
  const exit = await reconciler.stop("SIGTERM");
  if (exit.code !== 0) problems.push(`a reconciler exited ${exit.code ?? exit.signal} on SIGTERM (expected 0)`);
}

/**
 * Cycles of a reconciler started with `--inspect` up to LATE, one after the other (each triggered
 * when the one before has ended): its RSS after each, and in the windows that end at EARLY and LATE,
 * its RSS and heap after a full GC forced through the inspector.
 */
async function cyclesForMemory(reconciler: ReconcileProcess, msPerTick: number, problems: string[]): Promise<MemoryReading[]> {
  const url = inspectorUrlOf(reconciler.stderr());
  if (!url) throw new Error(`the reconciler printed no inspector URL: ${reconciler.stderr().slice(0, 400)}`);
  const session = await openInspectorSession(url);
  const readings: MemoryReading[] = [];
  try {
    let event = await reconciler.cycle(1, 120_000);
    for (;;) {
      if (event.result !== "success") problems.push(`memory: cycle ${event.cycle} ended ${event.result} (expected success)`);
      const { rssBytes } = await usageOf(reconciler.child.pid!, msPerTick);
      const afterGc = inWindow(event.cycle) ? await memoryAfterFullGc(session) : undefined;
      readings.push({ cycle: event.cycle, rssBytes, ...(afterGc ? { afterGc: { rssBytes: afterGc.rss, heapUsedBytes: afterGc.heapUsed } } : {}) });
      if (event.cycle % 50 === 0) process.stderr.write(`reconcile-loop: cycle ${event.cycle}, RSS ${mb(rssBytes)}${afterGc ? `, after a full GC ${mb(afterGc.rss)}, heap ${mb(afterGc.heapUsed)}` : ""}\n`);
      if (event.cycle >= LATE) return readings;
      event = await reconciler.reconcileNow(120_000);
    }
  } finally {
    session.close();
  }
}

interface Measured {
  readonly rounds: number;
  readonly documentCount: number;
  readonly loadBefore: number;
  readonly drifts: ReadonlyArray<DriftRun>;
  readonly cycles: ReadonlyArray<CycleRun>;
  readonly memory: ReadonlyArray<MemoryReading>;
  readonly firstCycle: CycleEvent | undefined;
  readonly problems: string[];
}

/** A measure of the readings of the `size` cycles ending at `last`: each reading's, and their median. */
function windowOf(memory: ReadonlyArray<MemoryReading>, last: number, size: number, measure: (reading: MemoryReading) => number | undefined) {
  const values = memory.filter((reading) => reading.cycle > last - size && reading.cycle <= last).map(measure).filter((value): value is number => value !== undefined);
  return { values, median: values.length > 0 ? median(values) : Number.NaN };
}

/** A memory row: a measure in the early and the late window (medians) and the change between them. */
function memoryRow(memory: ReadonlyArray<MemoryReading>, label: string, measure: (reading: MemoryReading) => number | undefined, windows: Windows, goal: boolean) {
  const early = windowOf(memory, windows.early, windows.size, measure);
  const late = windowOf(memory, windows.late, windows.size, measure);
  const change = late.median - early.median;
  const met = Math.abs(change) <= RSS_GOAL_MB * MB;
  const cycles = (last: number) => `${last - windows.size + 1}–${last}`;
  return {
    change,
    met,
    row: `| ${label}, cycles ${cycles(windows.early)} / ${cycles(windows.late)} (medians) | ${mb(early.median)} / ${mb(late.median)}: **${change >= 0 ? "+" : ""}${(change / MB).toFixed(1)} MB** | | ${goal ? `within ${RSS_GOAL_MB} MB: ${verdict(met)}` : ""} |`,
    detail: `${label} (MB), cycles ${cycles(windows.early)}: ${early.values.map((value) => (value / MB).toFixed(1)).join(" / ")}; cycles ${cycles(windows.late)}: ${late.values.map((value) => (value / MB).toFixed(1)).join(" / ")}`,
  };
}

function report(measured: Measured) {
  const { rounds, documentCount, drifts, cycles, memory, firstCycle, problems } = measured;
  const ratio = median(cycles.map((cycle, i) => cycle.durationMs / drifts[i]!.wallMs));
  const triggeredRatio = median(cycles.map((cycle, i) => cycle.wallMs / drifts[i]!.wallMs));
  const cpuRatios = cycles.flatMap((cycle, i) => (drifts[i]!.cpuMs ? [cycle.cpuMs / drifts[i]!.cpuMs!] : []));
  const cycleReads = median(cycles.map((cycle) => cycle.reads));
  const driftReads = median(drifts.map((drift) => drift.reads));
  const readsMet = cycles.every((cycle) => cycle.reads === LOWER_BOUND_CALLS) && drifts.every((drift) => drift.reads === LOWER_BOUND_CALLS);
  if (!readsMet) problems.push(`reads: cycles ${cycles.map((cycle) => cycle.reads).join("/")}, drifts ${drifts.map((drift) => drift.reads).join("/")} (expected ${LOWER_BOUND_CALLS} each, as plan)`);
  const rssAfterGc = memoryRow(memory, "reconciler RSS after a full GC", (reading) => reading.afterGc?.rssBytes, GC_WINDOWS, true);
  const heap = memoryRow(memory, "reconciler heap used after a full GC", (reading) => reading.afterGc?.heapUsedBytes, GC_WINDOWS, false);
  const rss = memoryRow(memory, "reconciler RSS as it is (no GC forced)", (reading) => reading.rssBytes, AS_IS_WINDOWS, false);
  const between = memory.filter((reading) => reading.cycle > EARLY && reading.cycle <= LATE - WINDOW).map((reading) => reading.rssBytes);
  const markdown = [
    `### Continuous reconcile: a no-change cycle of ${documentCount.toLocaleString("en-US")} documents against one-shot drift; memory over ${LATE} cycles`,
    "",
    `The drift-estate world (latency ${LATENCY_MS} ms, throttle ${THROTTLE.ratePerSecond}/s, burst ${THROTTLE.burst}, per identity and operation), the estate applied, no drift. \`converge reconcile -f DIR --interval 24h --jitter 0\` runs as a process (both \`--parallelism ${PARALLELISM} --rate-limit ${LIMIT}\`); each of its cycles is triggered by \`POST /reconcile\` and timed by its log line (\`durationMs\`: from loading the desired state to the cycle's record), and from the POST to that line as the bench reads it. \`converge drift -f DIR --output json\` (same flags) runs as a process from start to exit. One unmeasured run of each first; then ${rounds} round${rounds === 1 ? "" : "s"}, alternating which goes first, medians; ratios are medians of per-round ratios. Cycle 1 (at start, every file parsed): ${firstCycle ? `${ms(firstCycle.durationMs)}, ${firstCycle.result}` : "n/a"}. Memory: a second reconciler, started with \`--inspect=127.0.0.1:0\`, runs cycles 1 to ${LATE} back to back (each triggered when the one before has ended); its RSS (\`/proc/PID/status\`) is read after each cycle, and after each of cycles ${EARLY - WINDOW + 1}–${EARLY} and ${LATE - WINDOW + 1}–${LATE} a full GC is forced through the inspector (\`HeapProfiler.collectGarbage\`) and \`process.memoryUsage()\` read: medians of the ${WINDOW} readings of each window.`,
    "",
    "| measure | running reconciler, one cycle | `converge drift`, one process | goal |",
    "| --- | --- | --- | --- |",
    `| wall time (median) | ${ms(median(cycles.map((cycle) => cycle.durationMs)))} (cycle); ${ms(median(cycles.map((cycle) => cycle.wallMs)))} from the trigger | ${ms(median(drifts.map((drift) => drift.wallMs)))} | |`,
    `| cycle ÷ drift | **${ratio.toFixed(2)}×** (from the trigger: ${triggeredRatio.toFixed(2)}×) | 1 | ≤ ${RATIO_GOAL}: ${verdict(ratio <= RATIO_GOAL)} |`,
    `| CPU time of the process (median) | ${ms(median(cycles.map((cycle) => cycle.cpuMs)))} | ${drifts.every((drift) => drift.cpuMs !== undefined) ? ms(median(drifts.map((drift) => drift.cpuMs!))) : "n/a (no /usr/bin/time)"} | ${cpuRatios.length > 0 ? `${median(cpuRatios).toFixed(2)}×` : ""} |`,
    `| reads answered (median; throttled answers left out) | ${cycleReads} (${operations(cycles.at(-1)?.byOperation)}) | ${driftReads} (${operations(drifts.at(-1)?.byOperation)}) | both ${LOWER_BOUND_CALLS}, as plan: ${verdict(readsMet)} |`,
    `| requests sent (the cycle's log, retries included; median) | ${median(cycles.map((cycle) => cycle.requests))} | | |`,
    `| throttled answers (429, median) | ${median(cycles.map((cycle) => cycle.throttled))} | ${median(drifts.map((drift) => drift.throttled))} | |`,
    `| peak memory of the drift process | | ${drifts.some((drift) => drift.maxRssMiB !== undefined) ? `${Math.max(...drifts.map((drift) => drift.maxRssMiB ?? 0)).toFixed(0)} MiB` : "n/a"} | |`,
    rssAfterGc.row,
    heap.row,
    rss.row,
    "",
    `Per round — cycle ms: ${cycles.map((cycle) => Math.round(cycle.durationMs)).join(" / ")}; from the trigger: ${cycles.map((cycle) => Math.round(cycle.wallMs)).join(" / ")}; drift ms: ${drifts.map((drift) => Math.round(drift.wallMs)).join(" / ")}. ${rssAfterGc.detail}; ${heap.detail}; ${rss.detail}; as it is over cycles ${EARLY + 1}–${LATE - WINDOW}: ${between.length > 0 ? `${mb(Math.min(...between))} to ${mb(Math.max(...between))}` : "n/a"}. Load average before the run: ${measured.loadBefore.toFixed(2)} on ${availableParallelism()} CPUs, after: ${loadavg()[0]!.toFixed(2)}.`,
    "",
  ].join("\n");
  return {
    markdown,
    data: { documentCount, throttle: THROTTLE, latencyMs: LATENCY_MS, limit: LIMIT, drifts, cycles, memory, firstCycle, ratio, triggeredRatio, rssAfterGcChangeBytes: rssAfterGc.change, rssChangeBytes: rss.change, heapChangeBytes: heap.change, loadBefore: measured.loadBefore },
    problems,
  };
}
