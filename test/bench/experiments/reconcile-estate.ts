import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pLimit from "p-limit";
import { Credentials, collect, createClients, type Clients } from "../../../src/clients/index.js";
import { loadDesiredState } from "../../../src/desired/load.js";
import { hasChanges } from "../../../src/reconcile/model.js";
import { readAndPlan } from "../../../src/reconcile/reconcile.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { ACCOUNTS, APIS, ESTATE_TOKEN, LOWER_BOUND_CALLS, MANAGEMENT, estateWorld, writeEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli } from "../run-cli.js";
import { median } from "../stats.js";

const LATENCY_MS = 10;
/** The service's throttle, per identity and operation. */
const THROTTLE = { ratePerSecond: 1000, burst: 100 };
/**
 * converge's client-side limit: the throttle's rate with 80% of its burst. Requests reach the service
 * with jitter; a client limit equal to the throttle draws a few 429s (measured: 18 of 898 calls),
 * each a retry and a slowdown. Keeping 20 of the service's burst tokens spare absorbs the jitter.
 */
const CLIENT_LIMIT = { ratePerSecond: 1000, burst: 80 };
const PARALLELISM = 64;
const BASELINE_PARALLELISM = 10;

/** Every resource with its ID, as a state file would hold them: what a one-by-one refresh reads. */
interface KnownResources {
  readonly integrations: Array<{ apiId: string; id: string }>;
  readonly routes: Array<{ apiId: string; id: string }>;
  readonly contacts: Array<{ account: string; type: "BILLING" | "OPERATIONS" | "SECURITY" }>;
  readonly regions: Array<{ account: string; region: string }>;
}

async function knownResources(clients: Clients): Promise<KnownResources> {
  const integrations: KnownResources["integrations"] = [];
  const routes: KnownResources["routes"] = [];
  for (const { apiId } of APIS) {
    for (const item of await collect(clients.gateway.integrations(apiId))) integrations.push({ apiId, id: item.integrationId });
    for (const item of await collect(clients.gateway.routes(apiId))) routes.push({ apiId, id: item.routeId });
  }
  const contacts = ACCOUNTS.flatMap((account) => (["BILLING", "OPERATIONS", "SECURITY"] as const).map((type) => ({ account, type })));
  const regions = ACCOUNTS.flatMap((account) => ["af-south-1", "ap-east-1", "me-south-1", "eu-west-1"].map((region) => ({ account, region })));
  return { integrations, routes, contacts, regions };
}

/** The baseline: every resource read one by one at parallelism 10, as terraform's refresh does. */
async function refreshOneByOne(clients: Clients, known: KnownResources): Promise<void> {
  const limit = pLimit(BASELINE_PARALLELISM);
  const account = (id: string) => (id === MANAGEMENT ? {} : { AccountId: id });
  await Promise.all([
    ...known.integrations.map(({ apiId, id }) => limit(() => clients.gateway.getIntegration(apiId, id))),
    ...known.routes.map(({ apiId, id }) => limit(() => clients.gateway.getRoute(apiId, id))),
    ...known.contacts.map(({ account: id, type }) => limit(() => clients.account.getAlternateContact({ ...account(id), AlternateContactType: type }))),
    ...known.regions.map(({ account: id, region }) => limit(() => clients.account.getRegionOptStatus({ ...account(id), RegionName: region }))),
  ]);
}

/** Seconds the throttle forces on a set of calls: per operation, what exceeds the burst at the rate; plus one latency. */
function throttleBoundSeconds(callsPerOperation: ReadonlyMap<string, number>): number {
  const perOperation = [...callsPerOperation.values()].map((calls) => Math.max(0, calls - THROTTLE.burst) / THROTTLE.ratePerSecond);
  return Math.max(0, ...perOperation) + LATENCY_MS / 1000;
}

const OPERATIONS = ["GetRoutes", "GetIntegrations", "GetAlternateContact", "ListRegions", "GetApi", "GetApis", "GetRoute", "GetIntegration", "GetRegionOptStatus"];

function callsByOperation(service: RunningService): Map<string, number> {
  return new Map(OPERATIONS.map((operation) => [operation, service.requests.count({ operation })] as const).filter(([, count]) => count > 0));
}

/**
 * Issue "reconciler": a no-change plan of a 5,440-document estate against the service with 10 ms
 * latency and a throttle, measured in-process (calls against their lower bound, wall time against
 * the throttle's bound) and as the CLI (wall time, peak memory), and in the same run the baseline
 * that reads every resource one by one at parallelism 10.
 */
export const reconcileEstate: BenchExperiment = {
  name: "reconcile-estate",
  description: "no-change plan of a generated 5,440-document estate vs lower bound, throttle bound and a one-by-one refresh",
  async run({ rounds }) {
    const directory = await mkdtemp(join(tmpdir(), "converge-estate-"));
    const service = await startService({ port: 0, world: estateWorld({ latencyMs: LATENCY_MS, throttle: THROTTLE }) });
    const clients = createClients({ endpoint: service.url, credentials: new Credentials(ESTATE_TOKEN), rateLimit: { default: CLIENT_LIMIT } });
    const env = { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ESTATE_TOKEN };
    const cliFlags = ["--parallelism", String(PARALLELISM), "--rate-limit", `${CLIENT_LIMIT.ratePerSecond}:${CLIENT_LIMIT.burst}`];
    const problems: string[] = [];
    const ours: Array<{ wallMs: number; calls: number; boundMs: number }> = [];
    const baseline: Array<{ wallMs: number; calls: number }> = [];
    const cli: Array<{ wallMs: number; maxRssMiB: number | undefined }> = [];
    let initialApplyMs = 0;
    let documentCount = 0;
    try {
      documentCount = await writeEstate(directory);
      process.stderr.write(`reconcile-estate: ${documentCount} documents; initial apply…\n`);
      const apply = await runCli(["apply", "-f", directory, "--auto-approve", ...cliFlags], env);
      initialApplyMs = apply.wallMs;
      if (apply.code !== 0) problems.push(`initial apply exited ${apply.code}: ${apply.stderr.slice(0, 400)}`);
      const { documents } = await loadDesiredState([directory]);
      const known = await knownResources(clients);
      for (let round = 0; round < rounds; round += 1) {
        service.requests.reset();
        const started = performance.now();
        const result = await readAndPlan(documents, clients, { parallelism: PARALLELISM });
        const wallMs = performance.now() - started;
        if (hasChanges(result.plan) || result.problems.length > 0) problems.push(`round ${round + 1}: the plan is not empty`);
        const perOperation = callsByOperation(service);
        ours.push({ wallMs, calls: service.requests.count(), boundMs: throttleBoundSeconds(perOperation) * 1000 });

        service.requests.reset();
        const baselineStarted = performance.now();
        await refreshOneByOne(clients, known);
        baseline.push({ wallMs: performance.now() - baselineStarted, calls: service.requests.count() });

        const planRun = await runCli(["plan", "-f", directory, "--output", "json", ...cliFlags], env);
        if (planRun.code !== 0) problems.push(`CLI plan exited ${planRun.code} (expected 0, no changes): ${planRun.stderr.slice(0, 300)}`);
        cli.push({ wallMs: planRun.wallMs, maxRssMiB: planRun.maxRssMiB });
        process.stderr.write(`reconcile-estate: round ${round + 1}/${rounds}: plan ${Math.round(wallMs)} ms (${ours.at(-1)!.calls} calls, bound ${Math.round(ours.at(-1)!.boundMs)} ms), baseline ${Math.round(baseline.at(-1)!.wallMs)} ms (${baseline.at(-1)!.calls} calls), CLI ${Math.round(planRun.wallMs)} ms, ${planRun.maxRssMiB?.toFixed(0) ?? "?"} MiB\n`);
      }
    } finally {
      await clients.close();
      await service.close();
      await rm(directory, { recursive: true, force: true });
    }
    const oursMs = median(ours.map((r) => r.wallMs));
    const boundMs = median(ours.map((r) => r.boundMs));
    const baselineMs = median(baseline.map((r) => r.wallMs));
    const cliMs = median(cli.map((r) => r.wallMs));
    const rss = cli.map((r) => r.maxRssMiB).filter((v): v is number => v !== undefined);
    const peakMiB = rss.length > 0 ? Math.max(...rss) : undefined;
    const calls = median(ours.map((r) => r.calls));
    const markdown = [
      `### Reconcile: no-change plan of ${documentCount.toLocaleString("en-US")} documents`,
      "",
      `600 contacts over 200 accounts, 800 Region opt-ins, 40 APIs × (50 integrations + 50 routes), 40 Api documents; service latency ${LATENCY_MS} ms, throttle ${THROTTLE.ratePerSecond}/s (burst ${THROTTLE.burst}) per operation; converge reads at parallelism ${PARALLELISM} with a client limit of ${CLIENT_LIMIT.ratePerSecond}/s (burst ${CLIENT_LIMIT.burst}: the throttle's rate, 80% of its burst); the baseline uses the same client and limit. Initial apply of the whole estate (CLI): ${(initialApplyMs / 1000).toFixed(1)} s.`,
      "",
      "| measure | value | target |",
      "| --- | --- | --- |",
      `| API calls of the plan | ${calls} (lower bound ${LOWER_BOUND_CALLS}) | equal to the lower bound: ${calls === LOWER_BOUND_CALLS ? "met" : "NOT met"} |`,
      `| plan wall time, in-process (median) | ${Math.round(oursMs)} ms (throttle bound ${Math.round(boundMs)} ms, ratio ${(oursMs / boundMs).toFixed(2)}) | ≤ 1.25× the bound: ${oursMs <= 1.25 * boundMs ? "met" : "NOT met"} |`,
      `| one-by-one refresh at parallelism ${BASELINE_PARALLELISM} (median) | ${Math.round(baselineMs)} ms, ${median(baseline.map((r) => r.calls))} calls | converge ≥ 10× faster: ${(baselineMs / oursMs).toFixed(1)}× ${baselineMs / oursMs >= 10 ? "met" : "NOT met"} |`,
      `| \`converge plan\` CLI end to end (median; start, load and validate the files, read, plan, print JSON) | ${Math.round(cliMs)} ms | ≤ 1,000 ms: ${cliMs <= 1000 ? "met" : "NOT met"} |`,
      `| peak memory of the CLI process | ${peakMiB === undefined ? "n/a (no /usr/bin/time)" : `${peakMiB.toFixed(0)} MiB`} | < 200 MB: ${peakMiB === undefined ? "n/a" : peakMiB * 1.048576 < 200 ? "met" : "NOT met"} |`,
      "",
      `Per round — plan ms: ${ours.map((r) => Math.round(r.wallMs)).join(" / ")}; baseline ms: ${baseline.map((r) => Math.round(r.wallMs)).join(" / ")}; CLI ms: ${cli.map((r) => Math.round(r.wallMs)).join(" / ")}.`,
      "",
    ].join("\n");
    return { markdown, data: { documentCount, throttle: THROTTLE, clientLimit: CLIENT_LIMIT, latencyMs: LATENCY_MS, initialApplyMs, ours, baseline, cli, lowerBoundCalls: LOWER_BOUND_CALLS }, problems };
  },
};
