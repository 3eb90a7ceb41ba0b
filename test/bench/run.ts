import { writeFile } from "node:fs/promises";
import { arch, availableParallelism, cpus, loadavg, platform, release, totalmem } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import type { BenchCase, BenchGoal } from "./bench-case.js";
import { startBenchService } from "./bench-service.js";
import { BENCH_CASES } from "./cases/index.js";
import type { BenchExperiment, ExperimentReport } from "./experiment.js";
import { BENCH_EXPERIMENTS } from "./experiments/index.js";
import { runLoad, type RoundResult } from "./load.js";
import { median } from "./stats.js";

/**
 * `npm run bench`: for each case, a fresh service (`converge serve` in a child process, so that the
 * service and autocannon each get a core), a warm-up, then BENCH_ROUNDS measured rounds; prints the
 * median req/s and p99 per case as a markdown table and writes every round to bench-results.json.
 * Not part of `npm test`.
 */

const positiveInteger = (name: string, fallback: number) =>
  z.coerce.number({ error: `${name} must be a positive integer` }).int({ error: `${name} must be a positive integer` })
    .positive({ error: `${name} must be a positive integer` }).default(fallback);

const BenchConfig = z.object({
  BENCH_SECONDS: positiveInteger("BENCH_SECONDS", 5),
  BENCH_ROUNDS: positiveInteger("BENCH_ROUNDS", 5),
  BENCH_WARMUP_SECONDS: z.coerce.number().int().min(0, { error: "BENCH_WARMUP_SECONDS must be 0 or more" }).default(2),
  BENCH_CONNECTIONS: positiveInteger("BENCH_CONNECTIONS", 32),
  /** Comma-separated case names; all cases when absent. */
  BENCH_CASES: z.string().optional(),
  BENCH_IN_PROCESS: z.enum(["0", "1"], { error: 'BENCH_IN_PROCESS must be "0" or "1"' }).default("0"),
  /** Directory for --cpu-prof profiles of the service process. */
  BENCH_CPU_PROF: z.string().optional(),
  BENCH_RESULTS: z.string().default("bench-results.json"),
});
type BenchConfig = z.infer<typeof BenchConfig>;

interface CaseReport {
  readonly name: string;
  readonly description: string;
  readonly durable: boolean;
  readonly goal: BenchGoal | undefined;
  readonly goalMet: boolean | undefined;
  readonly median: { readonly requestsPerSecond: number; readonly p99Ms: number; readonly p50Ms: number };
  readonly rounds: ReadonlyArray<RoundResult>;
  /** Why the rounds do not measure the case (non-2xx answers, connection errors). */
  readonly problems: ReadonlyArray<string>;
}

function machineInfo() {
  const cpuList = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()} ${arch()}`,
    cpus: cpuList.length,
    availableParallelism: availableParallelism(),
    cpuModel: cpuList[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    /** 1-minute load average before the run: above 0.5 or so, other work competes for the cores. */
    loadAverageBefore: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** The load cases and experiments BENCH_CASES names (all when absent). */
function selectCases(config: BenchConfig): { cases: BenchCase[]; experiments: BenchExperiment[] } {
  if (!config.BENCH_CASES) return { cases: [...BENCH_CASES], experiments: [...BENCH_EXPERIMENTS] };
  const wanted = config.BENCH_CASES.split(",").map((name) => name.trim()).filter(Boolean);
  const known = [...BENCH_CASES.map((c) => c.name), ...BENCH_EXPERIMENTS.map((e) => e.name)];
  const unknown = wanted.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(`BENCH_CASES names unknown case${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => JSON.stringify(n)).join(", ")}: expected names among ${known.map((n) => JSON.stringify(n)).join(", ")}`);
  }
  return { cases: BENCH_CASES.filter((c) => wanted.includes(c.name)), experiments: BENCH_EXPERIMENTS.filter((e) => wanted.includes(e.name)) };
}

function goalMet(goal: BenchGoal | undefined, requestsPerSecond: number, p99Ms: number): boolean | undefined {
  if (!goal) return undefined;
  return (goal.minRequestsPerSecond === undefined || requestsPerSecond >= goal.minRequestsPerSecond)
    && (goal.maxP99Ms === undefined || p99Ms < goal.maxP99Ms);
}

async function runCase(benchCase: BenchCase, config: BenchConfig): Promise<CaseReport> {
  const service = await startBenchService({
    durable: benchCase.durable ?? false,
    inProcess: config.BENCH_IN_PROCESS === "1",
    ...(config.BENCH_CPU_PROF ? { cpuProfileDir: resolve(config.BENCH_CPU_PROF) } : {}),
  });
  const rounds: RoundResult[] = [];
  try {
    const request = await benchCase.setup(service);
    const load = { connections: config.BENCH_CONNECTIONS, pipelining: 1 };
    if (config.BENCH_WARMUP_SECONDS > 0) {
      process.stderr.write(`${benchCase.name}: warm-up ${config.BENCH_WARMUP_SECONDS} s\n`);
      await runLoad(service.url, request, { ...load, seconds: config.BENCH_WARMUP_SECONDS });
    }
    for (let round = 1; round <= config.BENCH_ROUNDS; round += 1) {
      const result = await runLoad(service.url, request, { ...load, seconds: config.BENCH_SECONDS });
      rounds.push(result);
      process.stderr.write(`${benchCase.name}: round ${round}/${config.BENCH_ROUNDS}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms\n`);
    }
  } finally {
    await service.close();
  }
  const requestsPerSecond = median(rounds.map((r) => r.requestsPerSecond));
  const p99Ms = median(rounds.map((r) => r.p99Ms));
  const problems: string[] = [];
  const non2xx = rounds.reduce((sum, r) => sum + r.non2xx, 0);
  const errors = rounds.reduce((sum, r) => sum + r.errors, 0);
  if (non2xx > 0) problems.push(`${non2xx} answers outside 2xx`);
  if (errors > 0) problems.push(`${errors} connection errors or timeouts`);
  return {
    name: benchCase.name,
    description: benchCase.description,
    durable: benchCase.durable ?? false,
    goal: benchCase.goal,
    goalMet: goalMet(benchCase.goal, requestsPerSecond, p99Ms),
    median: { requestsPerSecond, p99Ms, p50Ms: median(rounds.map((r) => r.p50Ms)) },
    rounds,
    problems,
  };
}

function describeGoal(report: CaseReport): string {
  if (!report.goal) return "";
  const parts = [
    ...(report.goal.minRequestsPerSecond !== undefined ? [`≥ ${report.goal.minRequestsPerSecond} req/s`] : []),
    ...(report.goal.maxP99Ms !== undefined ? [`p99 < ${report.goal.maxP99Ms} ms`] : []),
  ];
  return `${parts.join(", ")}: ${report.goalMet ? "met" : "NOT met"}`;
}

/** The per-case medians as a markdown table. */
export function renderBenchTableAsMarkdown(reports: ReadonlyArray<CaseReport>): string {
  const rows = reports.map((r) => [
    r.name,
    Math.round(r.median.requestsPerSecond).toLocaleString("en-US"),
    r.median.p99Ms.toFixed(1),
    r.median.p50Ms.toFixed(1),
    r.rounds.map((round) => Math.round(round.requestsPerSecond)).join(" / "),
    describeGoal(r),
    r.problems.join("; ") || "none",
  ]);
  const header = ["case", "req/s (median)", "p99 ms (median)", "p50 ms (median)", "req/s per round", "goal", "problems"];
  return [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

async function main(): Promise<number> {
  const parsed = BenchConfig.safeParse(process.env);
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => issue.message).join("; "));
  const config = parsed.data;
  const { cases, experiments } = selectCases(config);
  const machine = machineInfo();
  const where = config.BENCH_IN_PROCESS === "1" ? "in the bench process" : "in a child process (converge serve)";

  const reports: CaseReport[] = [];
  for (const benchCase of cases) reports.push(await runCase(benchCase, config));
  const experimentReports: Array<ExperimentReport & { name: string }> = [];
  for (const experiment of experiments) {
    process.stderr.write(`${experiment.name}: ${experiment.description}\n`);
    experimentReports.push({ name: experiment.name, ...(await experiment.run({ rounds: config.BENCH_ROUNDS })) });
  }
  const loadAverageAfter = Math.round(loadavg()[0]! * 100) / 100;

  const lines = [
    `## converge benchmarks`,
    "",
    `node ${machine.node} · ${machine.platform} · ${machine.cpus} CPUs (${machine.cpuModel}) · ${machine.memoryGiB} GiB · ` +
      `load average ${machine.loadAverageBefore} before, ${loadAverageAfter} after`,
    `service ${where}; autocannon in the bench process · ${config.BENCH_CONNECTIONS} connections, pipelining 1 · ` +
      `${config.BENCH_ROUNDS} rounds × ${config.BENCH_SECONDS} s after a ${config.BENCH_WARMUP_SECONDS} s warm-up · medians over rounds`,
    "",
    ...(reports.length > 0 ? [renderBenchTableAsMarkdown(reports), ""] : []),
    ...experimentReports.map((report) => report.markdown + (report.problems.length > 0 ? `\nproblems: ${report.problems.join("; ")}\n` : "")),
  ];
  process.stdout.write(lines.join("\n"));

  const results = {
    date: new Date().toISOString(),
    machine: { ...machine, loadAverageAfter },
    config: {
      seconds: config.BENCH_SECONDS,
      rounds: config.BENCH_ROUNDS,
      warmupSeconds: config.BENCH_WARMUP_SECONDS,
      connections: config.BENCH_CONNECTIONS,
      pipelining: 1,
      service: config.BENCH_IN_PROCESS === "1" ? "in-process" : "child-process",
    },
    cases: reports,
    experiments: experimentReports.map(({ name, data, problems }) => ({ name, data, problems })),
  };
  await writeFile(config.BENCH_RESULTS, `${JSON.stringify(results, null, 2)}\n`);
  process.stderr.write(`results written to ${resolve(config.BENCH_RESULTS)}\n`);
  return reports.some((r) => r.problems.length > 0) || experimentReports.some((r) => r.problems.length > 0) ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
