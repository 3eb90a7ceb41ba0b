import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { KINDS } from "../desired/schema.js";
import type { ObservedExchange } from "../clients/index.js";
import { CYCLE_RESULTS, RESOURCE_STATES, type CycleRecord } from "./cycle-record.js";
import { GUARD_NAMES } from "./guards.js";

/**
 * prom-client's default gauges named as counters, which `promtool check metrics` reports
 * ("non-counter metrics should not have "_total" suffix"): each is the sum of a gauge it also
 * exports by type (`nodejs_active_handles`, `nodejs_active_requests`, `nodejs_active_resources`),
 * so nothing is lost without them.
 */
const MISNAMED_DEFAULT_METRICS = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"] as const;

/**
 * The reconciler's metrics (docs/manual/continuous-reconcile.md, "Metrics"), named as Prometheus'
 * conventions and the controller-runtime and Crossplane metrics people chart: `converge_` first,
 * units in the name, `_total` for counters, labelled by kind, outcome, guard, service and operation,
 * never by resource (one series per resource would grow with the estate). prom-client writes the
 * exposition format; its default metrics add the process's (`process_*`, `nodejs_*`).
 */
export class ReconcilerMetrics {
  readonly registry = new Registry();
  readonly #cycles = new Counter({ name: "converge_reconcile_cycles_total", help: "Cycles run, by result (success, drift, refused, error).", labelNames: ["result"], registers: [this.registry] });
  readonly #duration = new Histogram({
    name: "converge_reconcile_cycle_duration_seconds",
    help: "How long a cycle took, from loading the desired state to its last write, by result.",
    labelNames: ["result"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly #resources = new Gauge({ name: "converge_resources", help: "Resources of the last cycle, by kind and the state it left them in.", labelNames: ["kind", "state"], registers: [this.registry] });
  readonly #corrections = new Counter({ name: "converge_corrections_total", help: "Writes acknowledged, by kind and action (create, update, delete).", labelNames: ["kind", "action"], registers: [this.registry] });
  readonly #refusals = new Counter({ name: "converge_guard_refusals_total", help: "Refusals, counted once per change: by guard (a cycle's writes stopped, or one resource's write held back).", labelNames: ["guard"], registers: [this.registry] });
  readonly #guarding = new Gauge({ name: "converge_guard_active", help: "Refusals in force after the last cycle, by guard.", labelNames: ["guard"], registers: [this.registry] });
  readonly #requests = new Counter({ name: "converge_requests_total", help: "Requests sent to the services, retries included, by service, operation and status code (\"error\": no answer).", labelNames: ["service", "operation", "code"], registers: [this.registry] });
  readonly #lastSuccess = new Gauge({ name: "converge_last_successful_cycle_timestamp_seconds", help: "When the last cycle that ended in success finished (Unix time).", registers: [this.registry] });
  readonly #loaded = new Gauge({ name: "converge_desired_state_loaded", help: "1 when the last cycle's desired state loaded whole and was taken, 0 when the last good one is in force.", registers: [this.registry] });
  readonly #documents = new Gauge({ name: "converge_desired_documents", help: "Documents of the desired state in force.", registers: [this.registry] });
  readonly #lockHeld: Gauge | undefined;
  readonly #info = new Gauge({ name: "converge_reconciler_info", help: "1, labelled by the reconciler's version, policy and shard.", labelNames: ["version", "policy", "shard"], registers: [this.registry] });

  constructor(options: { readonly withLock: boolean; readonly version: string; readonly policy: string; readonly shard: string; readonly processMetrics?: boolean }) {
    if (options.processMetrics !== false) {
      collectDefaultMetrics({ register: this.registry });
      // prom-client names these gauges with a counter's suffix, which promtool (rightly) refuses: left out
      for (const name of MISNAMED_DEFAULT_METRICS) this.registry.removeSingleMetric(name);
    }
    this.#lockHeld = options.withLock
      ? new Gauge({ name: "converge_lock_held", help: "1 while this instance holds the reconciler's lock (it reconciles), 0 while it stands by.", registers: [this.registry] })
      : undefined;
    this.#lockHeld?.set(0);
    this.#info.set({ version: options.version, policy: options.policy, shard: options.shard }, 1);
    for (const result of CYCLE_RESULTS) {
      this.#cycles.inc({ result }, 0);
      this.#duration.zero({ result });
    }
    for (const guard of GUARD_NAMES) {
      this.#refusals.inc({ guard }, 0);
      this.#guarding.set({ guard }, 0);
    }
    this.#loaded.set(0);
  }

  observeExchange(exchange: ObservedExchange): void {
    this.#requests.inc({ service: exchange.service, operation: exchange.operation, code: exchange.status === undefined ? "error" : String(exchange.status) });
  }

  observeCycle(record: CycleRecord): void {
    this.#cycles.inc({ result: record.result });
    this.#duration.observe({ result: record.result }, record.durationMs / 1000);
    if (record.result === "success") this.#lastSuccess.set(Date.parse(record.finishedAt) / 1000);
    this.#loaded.set(record.desiredState.loaded ? 1 : 0);
    this.#documents.set(record.desiredState.documents);
    const counts = new Map<string, number>();
    for (const resource of record.resources) counts.set(`${resource.kind}\u0000${resource.state}`, (counts.get(`${resource.kind}\u0000${resource.state}`) ?? 0) + 1);
    for (const kind of KINDS) for (const state of RESOURCE_STATES) this.#resources.set({ kind, state }, counts.get(`${kind}\u0000${state}`) ?? 0);
    for (const write of record.writes) if (write.status === "done") this.#corrections.inc({ kind: write.kind, action: write.type });
    const active = new Map<string, number>();
    for (const finding of record.findings) {
      if (finding.new) this.#refusals.inc({ guard: finding.guard });
      active.set(finding.guard, (active.get(finding.guard) ?? 0) + 1);
    }
    for (const guard of GUARD_NAMES) this.#guarding.set({ guard }, active.get(guard) ?? 0);
  }

  /** A cycle that threw instead of ending (its lock not taken in time): counted as an error. */
  cycleDidNotEnd(): void {
    this.#cycles.inc({ result: "error" });
  }

  lockHeld(held: boolean): void {
    this.#lockHeld?.set(held ? 1 : 0);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
