import { driftReport, type DriftReport } from "../reconcile/drift-report.js";
import { renderDriftAsHtml } from "../reconcile/render-drift-html.js";
import type { CycleRecord } from "./cycle-record.js";
import type { Reconciler } from "./reconciler.js";
import type { ReconcilerOptions } from "./reconciler-options.js";

export const STATUS_FORMAT_VERSION = 1;

/**
 * `GET /status`: the loop (role, phase, next cycle, failures in a row) and the last cycle as it was
 * recorded (its result, guard, desired state, every resource in drift's terms with the state the
 * cycle left it in, its writes and findings); `last` is null before the first cycle ends.
 */
export function statusDocument(reconciler: Reconciler, options: ReconcilerOptions, lockFile: string | undefined) {
  const { report: _report, ...last } = reconciler.last ?? ({} as Partial<CycleRecord>);
  return {
    formatVersion: STATUS_FORMAT_VERSION,
    ...reconciler.state,
    ready: reconciler.ready,
    policy: options.policy,
    intervalSeconds: options.intervalMs / 1000,
    shard: options.shard ? `${options.shard.index}/${options.shard.count}` : null,
    lock: lockFile ?? null,
    last: reconciler.last ? last : null,
  };
}

/**
 * `GET /`: the last cycle as drift's HTML report, with where each resource was left: a corrected
 * resource is shown in sync (it was written, and its write acknowledged), a fighting one as drifted,
 * each with why; the loop's state above it. Reloads itself every interval.
 */
export function statusPage(reconciler: Reconciler, options: ReconcilerOptions): string {
  const record = reconciler.last;
  const state = reconciler.state;
  const role = state.role === "single" ? "" : ` · ${state.role}${state.holder ? ` (the lock is held by ${state.holder})` : ""}`;
  const notices = [
    `converge reconcile · policy ${options.policy} · every ${options.intervalMs / 1000} s${role}`,
    record
      ? `cycle ${record.cycle} ended ${record.finishedAt}: ${record.result}${record.guard ? ` — writes stopped by ${record.guard.guard}: ${record.guard.message}` : ""}${record.error ? ` — ${record.error}` : ""}`
      : "no cycle has ended yet",
    ...(state.nextCycleAt ? [`next cycle at ${state.nextCycleAt}`] : []),
  ];
  const report: DriftReport = record?.report
    ? driftReport({
      ...record.report,
      coverage: record.report.summary.coverage,
      resources: record.resources.map(({ state: left, withheld, ...resource }) => ({
        ...resource,
        outcome: left === "corrected" ? "in-sync" : left === "fighting" ? "drifted" : left,
        reason: withheld?.reason ?? resource.reason,
      })),
    })
    : driftReport({ generatedAt: state.startedAt, desiredFingerprint: "", resources: [], coverage: { managed: 0, live: 0 } });
  return renderDriftAsHtml(report, { title: "converge reconcile", notices, refreshSeconds: Math.max(5, options.intervalMs / 1000) });
}
