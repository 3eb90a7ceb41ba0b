import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { promtoolCheckMetrics, prometheusMissingReason, startPrometheus, type PromSample, type RunningPrometheus } from "../support/prometheus.js";
import { startReconcileProcess, type CycleEvent, type ReconcileProcess } from "../support/reconcile-process.js";
import { ADMIN_TOKEN, useE2eResources } from "./e2e-fixture.js";

/**
 * A real Prometheus (Debian's package) scrapes `converge reconcile`'s `/metrics` every second, and
 * its HTTP API answers queries over converge's metrics with the values the reconciler reports in
 * its log and `/status`: counters, the resources gauge by kind, a rate, the cycle duration's
 * histogram (`histogram_quantile`, its sum and count). `promtool check metrics` finds nothing to
 * report in the exposition. The reconciler runs with a long interval and its cycles are triggered
 * (`POST /reconcile`), so that every value is known when it is queried.
 */

const skipReason = prometheusMissingReason();
if (skipReason) console.warn(`skipping the Prometheus tests: ${skipReason}`);

const JOB = "converge-reconcile";
/** Cycles run by POST /reconcile after Prometheus' first scrape (cycle 1 runs at start, before it). */
const TRIGGERED = 4;
const CYCLES = 1 + TRIGGERED;

const { services, dirs } = useE2eResources();
let service: RunningService;
let reconciler: ReconcileProcess | undefined;
let prometheus: RunningPrometheus | undefined;
let cycles: CycleEvent[];

/** The one sample of `promql` (fails the test when there is none or several). */
async function single(promql: string): Promise<number> {
  const samples = await prometheus!.query(promql);
  expect(samples, promql).toHaveLength(1);
  return samples[0]!.value;
}

/** Polls `promql` until its one sample is `value` (Prometheus scrapes every second). */
async function untilScraped(promql: string, value: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last: PromSample[] = [];
  while (Date.now() < deadline) {
    last = await prometheus!.query(promql);
    if (last.length === 1 && last[0]!.value === value) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`prometheus did not answer ${value} to ${promql} within 15 s (last answer ${JSON.stringify(last)}); its log: ${prometheus!.log().slice(-1500)}`);
}

const SUCCESSES = `converge_reconcile_cycles_total{job="${JOB}",result="success"}`;

beforeAll(async () => {
  if (skipReason) return;
  service = await services.start();
  const dir = await dirs.copyOfExamples();
  reconciler = await startReconcileProcess(["-f", dir, "--interval", "1h", "--jitter", "0"], { env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN }, logFormat: "json" });
  await reconciler.cycle(1);
  prometheus = await startPrometheus(JOB, [new URL(reconciler.url).host]);
  await untilScraped(SUCCESSES, 1);
  for (let i = 0; i < TRIGGERED; i += 1) await reconciler.reconcileNow();
  await untilScraped(SUCCESSES, CYCLES);
  cycles = reconciler.cycles();
}, 60_000);

afterAll(async () => {
  await prometheus?.close();
  await reconciler?.stop("SIGTERM");
});

describe.skipIf(skipReason !== undefined)("a real Prometheus scraping converge reconcile's /metrics", () => {
  it("answers converge's counters and gauges with the values the reconciler reports", async () => {
    expect(cycles.map((cycle) => [cycle.cycle, cycle.result])).toEqual(Array.from({ length: CYCLES }, (_, i) => [i + 1, "success"]));
    const status = await (await fetch(`${reconciler!.url}/status`)).json() as {
      last: { cycle: number; summary: Record<string, number>; desiredState: { documents: number }; resources: Array<{ kind: string; state: string }> };
    };
    expect(status.last.cycle).toBe(CYCLES);

    expect(await single(`up{job="${JOB}"}`)).toBe(1);
    expect(await single(SUCCESSES)).toBe(CYCLES);
    expect(await single(`sum(converge_reconcile_cycles_total{job="${JOB}"})`)).toBe(CYCLES);
    expect(await single(`converge_desired_state_loaded{job="${JOB}"}`)).toBe(1);
    expect(await single(`converge_desired_documents{job="${JOB}"}`)).toBe(status.last.desiredState.documents);

    // the last cycle left every resource in sync; the gauge by kind counts them as /status lists them
    const inSync = status.last.summary["in-sync"]!;
    expect(inSync).toBeGreaterThan(10);
    expect(await single(`sum(converge_resources{job="${JOB}",state="in-sync"})`)).toBe(inSync);
    const byKind: Record<string, number> = {};
    for (const resource of status.last.resources) if (resource.state === "in-sync") byKind[resource.kind] = (byKind[resource.kind] ?? 0) + 1;
    const gauge = await prometheus!.query(`converge_resources{job="${JOB}",state="in-sync"} > 0`);
    expect(Object.fromEntries(gauge.map((sample) => [sample.metric.kind, sample.value]))).toEqual(byKind);

    // cycle 1 created and corrected what the examples declare; the others wrote nothing
    expect(cycles[0]!.summary.corrected).toBeGreaterThan(0);
    expect(await single(`sum(converge_corrections_total{job="${JOB}"})`)).toBe(cycles[0]!.summary.corrected);
    // every request the service answered was one of the reconciler's, counted by service, operation and code
    const requests = cycles.reduce((sum, cycle) => sum + cycle.requests, 0);
    expect(requests).toBe(service.requests.count());
    expect(await single(`sum(converge_requests_total{job="${JOB}"})`)).toBe(requests);
    expect(await single(`sum(converge_requests_total{job="${JOB}",service="account",operation="ListRegions",code="200"})`)).toBe(service.requests.count({ operation: "ListRegions" }));
  });

  it("computes rate(), increases and histogram_quantile() over the cycles", async () => {
    expect(await single(`max_over_time(${SUCCESSES}[5m]) - min_over_time(${SUCCESSES}[5m])`)).toBe(TRIGGERED);
    expect(await single(`rate(${SUCCESSES}[5m])`)).toBeGreaterThan(0);

    const seconds = cycles.map((cycle) => cycle.durationMs / 1000);
    const buckets = await prometheus!.query(`converge_reconcile_cycle_duration_seconds_bucket{job="${JOB}",result="success"}`);
    const bounds = buckets.map((sample) => Number(sample.metric.le)).filter(Number.isFinite).sort((a, b) => a - b);
    expect(bounds.length).toBeGreaterThan(5);
    // the 1.0-quantile is the upper bound of the bucket that holds the longest cycle
    const longestBound = bounds.find((bound) => bound >= Math.max(...seconds));
    expect(await single(`histogram_quantile(1, sum by (le) (converge_reconcile_cycle_duration_seconds_bucket{job="${JOB}",result="success"}))`)).toBe(longestBound);
    const mean = await single(`converge_reconcile_cycle_duration_seconds_sum{job="${JOB}",result="success"} / converge_reconcile_cycle_duration_seconds_count{job="${JOB}",result="success"}`);
    expect(mean).toBeCloseTo(seconds.reduce((sum, value) => sum + value, 0) / seconds.length, 6);
    // the median of the cycles Prometheus saw (those after its first scrape): within the buckets of their durations
    const median = await single(`histogram_quantile(0.5, sum by (le) (rate(converge_reconcile_cycle_duration_seconds_bucket{job="${JOB}",result="success"}[5m])))`);
    const triggered = seconds.slice(1);
    const lowest = [0, ...bounds].filter((bound) => bound < Math.min(...triggered)).at(-1)!;
    expect(median).toBeGreaterThanOrEqual(lowest);
    expect(median).toBeLessThanOrEqual(bounds.find((bound) => bound >= Math.max(...triggered))!);
  });

  it("passes promtool check metrics with nothing to report", async () => {
    const answer = await fetch(`${reconciler!.url}/metrics`);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const exposition = await answer.text();
    expect(exposition).toContain("# TYPE converge_reconcile_cycle_duration_seconds histogram");
    expect(exposition).toContain("# TYPE process_resident_memory_bytes gauge");
    expect(await promtoolCheckMetrics(exposition)).toEqual({ code: 0, output: "" });
  });
});
