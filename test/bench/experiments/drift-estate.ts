import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Credentials, collect, createClients } from "../../../src/clients/index.js";
import type { DriftReport } from "../../../src/reconcile/drift-report.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { ACCOUNTS, APIS, ESTATE_TOKEN, MANAGEMENT, estateWorld, writeEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli, type CliRun } from "../run-cli.js";
import { READ_OPERATIONS } from "../service-reads.js";
import { median } from "../stats.js";

/** The world of reconcile-estate: 10 ms latency and a throttle of 1000/s (burst 100) per identity and operation. */
const LATENCY_MS = 10;
const THROTTLE = { ratePerSecond: 1000, burst: 100 };
const SHARDS = 4;
const PARALLELISM = 64;
/**
 * Client limits. The service throttles per identity and operation, and every shard uses the same
 * token, so the shards share one budget: each gets a quarter of the single process's limit (the
 * throttle's rate, 80% of its burst, as in reconcile-estate), or they would draw 429s and retries.
 */
const SINGLE_LIMIT = "1000:80";
const SHARD_LIMIT = `${THROTTLE.ratePerSecond / SHARDS}:${80 / SHARDS}`;
/** Drift made behind converge's back before measuring, so that the reports are not all in sync. */
const EXPECTED = { drifted: 10, missing: 5, unmanaged: 5 };


function reads(service: RunningService): number {
  return READ_OPERATIONS.reduce((sum, operation) => sum + service.requests.count({ operation }), 0);
}

function normalized(report: DriftReport): string {
  const { generatedAt: _generatedAt, ...rest } = report;
  return JSON.stringify(rest);
}

async function introduceDrift(service: RunningService): Promise<void> {
  const clients = createClients({ endpoint: service.url, credentials: new Credentials(ESTATE_TOKEN) });
  try {
    for (const account of ACCOUNTS.slice(0, EXPECTED.drifted)) {
      await clients.account.putAlternateContact({ ...(account === MANAGEMENT ? {} : { AccountId: account }), AlternateContactType: "SECURITY", Name: "changed by hand", Title: "security lead", EmailAddress: "someone@example.com", PhoneNumber: "+1 555 0000" });
    }
    const apiId = APIS[0]!.apiId;
    const routes = await collect(clients.gateway.routes(apiId));
    for (const route of routes.slice(0, EXPECTED.missing)) await clients.gateway.deleteRoute(apiId, route.routeId);
    for (let i = 0; i < EXPECTED.unmanaged; i += 1) await clients.gateway.createRoute(apiId, { routeKey: `GET /stray-${i}` });
  } finally {
    await clients.close();
  }
}

/**
 * Issue "drift": `converge drift` of the 5,440-document estate as one CLI process and as 4 shard CLI
 * processes run side by side (then merged), in the same run and against the same service; wall time
 * of each (the slowest shard for the sharded run), reads made, throttled answers, and a check that
 * the merged shard reports equal the single report.
 */
export const driftEstate: BenchExperiment = {
  name: "drift-estate",
  description: `converge drift of the 5,440-document estate: one CLI process vs ${SHARDS} shard processes in parallel, then drift-merge`,
  async run({ rounds }) {
    const loadBefore = loadavg()[0]!;
    const directory = await mkdtemp(join(tmpdir(), "converge-drift-estate-"));
    const reports = await mkdtemp(join(tmpdir(), "converge-drift-reports-"));
    const shardFiles = Array.from({ length: SHARDS }, (_, i) => join(reports, `shard-${i + 1}.json`));
    const service = await startService({ port: 0, world: estateWorld({ latencyMs: LATENCY_MS, throttle: THROTTLE }) });
    const env = { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ESTATE_TOKEN };
    const problems: string[] = [];
    const single: Array<{ wallMs: number; reads: number; throttled: number; maxRssMiB: number | undefined }> = [];
    const sharded: Array<{ wallMs: number; mergeMs: number; shardMs: number[]; reads: number; throttled: number; maxRssMiB: number | undefined }> = [];
    /**
     * Shard 1 run on its own, right after the single process: what one shard takes when it has a
     * machine and the API's quota to itself (an Indexed Job's pod on its own node, shards run one
     * after the other), so with the single process's client limit.
     */
    const alone: Array<{ wallMs: number; reads: number; ratio: number }> = [];
    let documentCount = 0;
    let summary: DriftReport["summary"] | undefined;
    try {
      documentCount = await writeEstate(directory);
      process.stderr.write(`drift-estate: ${documentCount} documents; initial apply…\n`);
      const apply = await runCli(["apply", "-f", directory, "--auto-approve", "--parallelism", String(PARALLELISM), "--rate-limit", SINGLE_LIMIT], env);
      if (apply.code !== 0) problems.push(`initial apply exited ${apply.code}: ${apply.stderr.slice(0, 400)}`);
      await introduceDrift(service);
      const common = ["drift", "-f", directory, "--output", "json", "--parallelism", String(PARALLELISM)];
      for (let round = 0; round < rounds; round += 1) {
        service.requests.reset();
        const whole = await runCli([...common, "--rate-limit", SINGLE_LIMIT], env);
        single.push({ wallMs: whole.wallMs, reads: reads(service), throttled: service.requests.count({ status: 429 }), maxRssMiB: whole.maxRssMiB });
        if (whole.code !== 2) problems.push(`round ${round + 1}: single drift exited ${whole.code} (expected 2): ${whole.stderr.slice(0, 300)}`);

        service.requests.reset();
        const first = await runCli([...common, "--rate-limit", SINGLE_LIMIT, "--shard", `1/${SHARDS}`], env);
        alone.push({ wallMs: first.wallMs, reads: reads(service), ratio: first.wallMs / whole.wallMs });
        if (![0, 2].includes(first.code ?? -1)) problems.push(`round ${round + 1}: shard 1 alone exited ${first.code}: ${first.stderr.slice(0, 300)}`);

        service.requests.reset();
        const started = performance.now();
        const shardRuns: CliRun[] = await Promise.all(Array.from({ length: SHARDS }, (_, i) =>
          runCli([...common, "--rate-limit", SHARD_LIMIT, "--shard", `${i + 1}/${SHARDS}`, "--report", shardFiles[i]!], env)));
        const wallMs = performance.now() - started;
        const shardReads = reads(service);
        const throttled = service.requests.count({ status: 429 });
        const merged = await runCli(["drift-merge", ...shardFiles, "--output", "json"], env);
        await Promise.all(shardFiles.map((file) => rm(file, { force: true })));
        for (const [i, run] of shardRuns.entries()) if (![0, 2].includes(run.code ?? -1)) problems.push(`round ${round + 1}: shard ${i + 1} exited ${run.code}: ${run.stderr.slice(0, 300)}`);
        if (merged.code !== 2) problems.push(`round ${round + 1}: drift-merge exited ${merged.code} (expected 2): ${merged.stderr.slice(0, 300)}`);
        const rss = shardRuns.map((run) => run.maxRssMiB).filter((value): value is number => value !== undefined);
        sharded.push({ wallMs, mergeMs: merged.wallMs, shardMs: shardRuns.map((run) => run.wallMs), reads: shardReads, throttled, maxRssMiB: rss.length > 0 ? Math.max(...rss) : undefined });
        try {
          const wholeReport = JSON.parse(whole.stdout) as DriftReport;
          summary = wholeReport.summary;
          if (normalized(JSON.parse(merged.stdout) as DriftReport) !== normalized(wholeReport)) problems.push(`round ${round + 1}: the merged shard reports differ from the single report`);
          if (summary.drifted !== EXPECTED.drifted || summary.missing !== EXPECTED.missing || summary.unmanaged !== EXPECTED.unmanaged || summary.unknown !== 0) {
            problems.push(`round ${round + 1}: unexpected summary ${JSON.stringify(summary)} (expected ${JSON.stringify(EXPECTED)})`);
          }
        } catch (error) {
          problems.push(`round ${round + 1}: a report is not JSON: ${(error as Error).message}`);
        }
        process.stderr.write(`drift-estate: round ${round + 1}/${rounds}: single ${Math.round(whole.wallMs)} ms (${single.at(-1)!.reads} reads, ${single.at(-1)!.throttled} throttled); ${SHARDS} shards ${Math.round(wallMs)} ms (shards ${shardRuns.map((run) => Math.round(run.wallMs)).join("/")} ms, ${shardReads} reads, ${throttled} throttled), merge ${Math.round(merged.wallMs)} ms; shard 1 alone ${Math.round(first.wallMs)} ms\n`);
      }
    } finally {
      await service.close();
      await rm(directory, { recursive: true, force: true });
      await rm(reports, { recursive: true, force: true });
    }
    const singleMs = median(single.map((r) => r.wallMs));
    const shardedMs = median(sharded.map((r) => r.wallMs));
    const mergeMs = median(sharded.map((r) => r.mergeMs));
    const slowestShard = (r: (typeof sharded)[number]) => Math.max(...r.shardMs);
    const fastestShard = (r: (typeof sharded)[number]) => Math.min(...r.shardMs);
    const mib = (values: Array<number | undefined>) => {
      const known = values.filter((value): value is number => value !== undefined);
      return known.length > 0 ? `${Math.max(...known).toFixed(0)} MiB` : "n/a";
    };
    const markdown = [
      `### Drift: ${documentCount.toLocaleString("en-US")} documents, one process vs ${SHARDS} shards`,
      "",
      `The reconcile-estate world (latency ${LATENCY_MS} ms, throttle ${THROTTLE.ratePerSecond}/s, burst ${THROTTLE.burst}, per identity and operation) with drift made by hand (${EXPECTED.drifted} contacts changed, ${EXPECTED.missing} routes deleted, ${EXPECTED.unmanaged} stray routes in an owned API). \`converge drift --output json --parallelism ${PARALLELISM}\` as one CLI process (client limit ${SINGLE_LIMIT}) and as ${SHARDS} \`--shard K/${SHARDS}\` processes started together (same token, so one shared throttle budget: client limit ${SHARD_LIMIT} each), then \`drift-merge\`; and shard 1 alone with the single process's limit; ${rounds} round${rounds === 1 ? "" : "s"}, medians. A shard parses only its own documents (it finds every document's read key in its lines). Summary of every report: ${summary ? JSON.stringify(summary) : "n/a"}.`,
      "",
      "| measure | one process | 4 shards in parallel |",
      "| --- | --- | --- |",
      `| wall time (median) | ${Math.round(singleMs)} ms | ${Math.round(shardedMs)} ms until the last shard exits (+ ${Math.round(mergeMs)} ms drift-merge): ${(shardedMs / singleMs).toFixed(2)}× one process (goal ≤ 1: ${shardedMs <= singleMs ? "met" : "NOT met"}) |`,
      `| fastest / slowest shard (median) | | ${Math.round(median(sharded.map(fastestShard)))} / ${Math.round(median(sharded.map(slowestShard)))} ms |`,
      `| shard 1/${SHARDS} run alone (median; a machine and the API quota to itself) | | ${Math.round(median(alone.map((r) => r.wallMs)))} ms, ${median(alone.map((r) => r.reads))} reads: ${median(alone.map((r) => r.ratio)).toFixed(2)}× one process (median of per-round ratios; goal ≤ 0.45: ${median(alone.map((r) => r.ratio)) <= 0.45 ? "met" : "NOT met"}) |`,
      `| reads made (median) | ${median(single.map((r) => r.reads))} | ${median(sharded.map((r) => r.reads))} in total |`,
      `| throttled answers (429, median) | ${median(single.map((r) => r.throttled))} | ${median(sharded.map((r) => r.throttled))} |`,
      `| peak memory of a process | ${mib(single.map((r) => r.maxRssMiB))} | ${mib(sharded.map((r) => r.maxRssMiB))} |`,
      "",
      `Per round — single ms: ${single.map((r) => Math.round(r.wallMs)).join(" / ")}; sharded ms: ${sharded.map((r) => Math.round(r.wallMs)).join(" / ")}; shard 1 alone ms: ${alone.map((r) => Math.round(r.wallMs)).join(" / ")}. Load average before the run: ${loadBefore.toFixed(2)} on ${availableParallelism()} CPUs.`,
      "",
    ].join("\n");
    return { markdown, data: { documentCount, shards: SHARDS, throttle: THROTTLE, latencyMs: LATENCY_MS, singleLimit: SINGLE_LIMIT, shardLimit: SHARD_LIMIT, single, sharded, alone, summary, loadBefore }, problems };
  },
};

