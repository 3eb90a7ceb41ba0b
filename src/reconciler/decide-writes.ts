import type { PlannedAction } from "../reconcile/model.js";
import type { PlanResult } from "../reconcile/plan.js";
import { documentHash, isWrite, type CycleContext } from "./cycle-context.js";
import type { Finding, Withheld } from "./cycle-record.js";
import type { CycleRefusal } from "./guards.js";

/** What a cycle may write: the planned writes its policy and guards allow, each other one with what held it back. */
export interface WriteDecisions {
  readonly allowed: ReadonlyArray<PlannedAction>;
  readonly withheld: ReadonlyMap<PlannedAction, Withheld>;
  /** The guard that stopped every write: the one given, or the change budget. */
  readonly refusal?: CycleRefusal | undefined;
  /** Findings about single resources (protections, fights, policy, deletes waiting), each marked new or not. */
  readonly findings: ReadonlyArray<Finding>;
}

export interface DecisionInput {
  readonly context: CycleContext;
  readonly number: number;
  /** Whether the desired set reads as in the cycle before: deletes wait otherwise. */
  readonly settled: boolean;
  /** A guard that already stops every write (the desired state did not load, shrank, or does not plan). */
  readonly refusal: CycleRefusal | undefined;
}

/**
 * Decides each planned write (docs/manual/continuous-reconcile.md, "Policies" and "Guards"): the
 * policy first (`--policy observe`, a document's `policy: observe`), then a fight, then a delete
 * whose documents have not read the same twice; what is left is written, unless a cycle-wide guard
 * holds or it is more than the change budget, which stop every write of the cycle. A refused action
 * (a protection) is never a write; it is a finding, reported once per change of live state.
 */
export function decideWrites(planned: PlanResult, input: DecisionInput): WriteDecisions {
  const { context } = input;
  const withheld = new Map<PlannedAction, Withheld>();
  const findings: Finding[] = [];
  const candidates: PlannedAction[] = [];
  const hold = (action: PlannedAction, held: Withheld, detail: string) => {
    withheld.set(action, held);
    findings.push({ guard: held.guard, address: action.address, message: held.reason, new: context.findings.report(`${held.guard}:${action.address}`, detail) });
  };
  for (const action of planned.plan.actions) {
    if (action.type === "refused") {
      const reason = action.reason ?? "refused by a protection";
      findings.push({ guard: "protection", address: action.address, message: reason, new: context.findings.report(`protection:${action.address}`, `${reason}\u0000${JSON.stringify(action.changes)}`) });
      continue;
    }
    if (!isWrite(action)) continue;
    const held = heldBack(action, planned, input);
    if (held) hold(action, held, `${held.reason}\u0000${JSON.stringify(action.changes)}`);
    else candidates.push(action);
  }
  const refusal = input.refusal ?? overBudget(candidates.length, context.options.maxChanges);
  if (refusal) {
    for (const action of candidates) withheld.set(action, { guard: refusal.guard, reason: refusal.message });
    return { allowed: [], withheld, refusal, findings };
  }
  return { allowed: candidates, withheld, findings };
}

/** What holds one write back, if anything: the policy, a fight, or a delete not yet settled. */
function heldBack(action: PlannedAction, planned: PlanResult, input: DecisionInput): Withheld | undefined {
  const { options, fights } = input.context;
  const loaded = planned.actionDocuments.get(action);
  if (options.policy === "observe") return { guard: "policy", reason: "observed, not corrected: --policy observe" };
  if (loaded?.document.policy === "observe") {
    return { guard: "policy", reason: `observed, not corrected: its document (${loaded.source.file}:${loaded.source.line}) says policy: observe` };
  }
  const fight = fights.fightOf(action.address, documentHash(loaded));
  if (fight) {
    return {
      guard: "fighting",
      reason: `corrected ${fight.corrections} times within ${fight.cycles} cycles and changed back each time (${fight.fields.join(", ")}): `
        + "something else keeps changing it; no longer corrected until its document changes or it is found in sync",
    };
  }
  if (action.type === "delete" && !input.settled) {
    return {
      guard: "settling",
      reason: "a delete is made only once the desired state reads the same in two consecutive cycles "
        + "(it changed since the cycle before, or a restart forgot it): deleted next cycle if it still reads so",
    };
  }
  return undefined;
}

function overBudget(writes: number, maxChanges: number | undefined): CycleRefusal | undefined {
  if (maxChanges === undefined || writes <= maxChanges) return undefined;
  return {
    guard: "change-budget",
    message: `the cycle plans ${writes} writes, more than --max-changes ${maxChanges}: none is made; `
      + "check what changed (GET /status lists them), then raise --max-changes or run converge apply once",
  };
}
