import type { DriftResource } from "../reconcile/drift-report.js";
import type { PlannedAction } from "../reconcile/model.js";
import type { PlanResult } from "../reconcile/plan.js";
import { documentHash, isWrite, type CycleContext } from "./cycle-context.js";
import type { ResourceStatus, WriteRecord } from "./cycle-record.js";
import type { WriteDecisions } from "./decide-writes.js";

/**
 * Where the cycle left each resource drift classified: in sync; corrected (its write acknowledged);
 * unknown when its write failed (never a false "in sync"); fighting; or drift's outcome, with what
 * held its write back. Records the corrections made, and ends the fights of resources found in sync.
 */
export function resourceStatuses(
  resources: ReadonlyArray<DriftResource>,
  planned: PlanResult,
  decisions: WriteDecisions,
  writes: ReadonlyArray<WriteRecord>,
  context: CycleContext,
  number: number,
): ResourceStatus[] {
  const actions = new Map<string, PlannedAction>(planned.plan.actions.filter(isWrite).map((action) => [action.address, action]));
  const written = new Map(writes.map((write) => [write.address, write]));
  return resources.map((resource): ResourceStatus => {
    if (resource.outcome === "in-sync") {
      context.fights.inSync(resource.address);
      return { ...resource, state: "in-sync" };
    }
    const action = actions.get(resource.address);
    const write = written.get(resource.address);
    if (action && write) return writtenStatus(resource, action, write, planned, context, number);
    const held = action ? decisions.withheld.get(action) : undefined;
    if (held) return { ...resource, state: held.guard === "fighting" ? "fighting" : resource.outcome, withheld: held };
    if (resource.outcome === "refused") return { ...resource, state: "refused", withheld: { guard: "protection", reason: resource.reason ?? "refused by a protection" } };
    return { ...resource, state: resource.outcome };
  });
}

function writtenStatus(
  resource: DriftResource,
  action: PlannedAction,
  write: WriteRecord,
  planned: PlanResult,
  context: CycleContext,
  number: number,
): ResourceStatus {
  if (write.status === "failed") {
    return { ...resource, state: "unknown", reason: `the correction (${write.type}) failed: ${write.error ?? "no reason given"}` };
  }
  if (write.status === "skipped") return { ...resource, state: resource.outcome, reason: "not corrected: the reconciler was stopping" };
  context.fights.corrected(resource.address, number, action.changes.map((change) => change.path), documentHash(planned.actionDocuments.get(action)), write.type === "create");
  return { ...resource, state: "corrected", reason: `corrected in cycle ${number} (${write.type})` };
}
