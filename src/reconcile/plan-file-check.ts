import { canonicalJson } from "../desired/canonical-json.js";
import type { Plan, PlannedAction } from "./model.js";

/**
 * A saved plan is a commitment, not a program (docs/manual/plan-and-apply.md): `apply PLAN.json` plans the file's own
 * documents against live state again and runs that plan only when it is the file's plan, exactly.
 * These are the ways the two can differ, each worded for the refusal.
 */
export type PlanFileDifference =
  /** The live state read now is not the one the plan was made from (someone changed it, or the fingerprint was edited). */
  | { readonly kind: "stale" }
  /** Anything else: the file's actions, options or summary are not what its documents plan. */
  | { readonly kind: "edited"; readonly detail: string };

/**
 * How the plan in a file differs from `current`, the plan its documents make against live state
 * now (with the file's options); undefined when they are the same in every field. Everything is
 * compared, as canonical JSON (key order does not matter): the fingerprint first, then each
 * action in order (type, address, phase, changes, reason, request, source…), then the options and
 * the summary. Pure.
 */
export function planFileDifference(saved: Plan, current: Plan): PlanFileDifference | undefined {
  if (saved.liveFingerprint !== current.liveFingerprint) return { kind: "stale" };
  const edited = (detail: string): PlanFileDifference => ({ kind: "edited", detail });
  const savedActions = Array.isArray(saved.actions) ? saved.actions : [];
  const count = Math.max(savedActions.length, current.actions.length);
  for (let index = 0; index < count; index += 1) {
    const inFile = savedActions[index];
    const planned = current.actions[index];
    if (canonicalJson(inFile) === canonicalJson(planned)) continue;
    const where = `action ${index + 1}`;
    if (planned === undefined) {
      return edited(`${where}, ${describe(inFile)}, is in the file but not in the plan of its documents `
        + `(which has ${current.actions.length} actions)`);
    }
    if (inFile === undefined) {
      return edited(`${where}, ${describe(planned)}, is planned by its documents but missing from the file `
        + `(which has ${savedActions.length} actions)`);
    }
    if (inFile.type !== planned.type || inFile.address !== planned.address) {
      return edited(`${where} is ${describe(inFile)} in the file, but its documents plan ${describe(planned)}`);
    }
    return edited(`${where}, ${describe(planned)}, differs in ${differingFields(inFile, planned).join(", ")}`);
  }
  for (const field of ["formatVersion", "prune", "repairTwins", "summary"] as const) {
    if (canonicalJson(saved[field]) !== canonicalJson(current[field])) {
      return edited(`${field} is ${canonicalJson(saved[field])} in the file, but ${canonicalJson(current[field])} in the plan of its documents`);
    }
  }
  const extra = Object.keys(saved).filter((key) => !(key in current));
  if (extra.length > 0) return edited(`the file has field${extra.length > 1 ? "s" : ""} ${extra.join(", ")}, which no plan has`);
  return undefined;
}

function describe(action: PlannedAction | undefined): string {
  if (typeof action !== "object" || action === null) return JSON.stringify(action) ?? "undefined";
  return `${JSON.stringify(action.type)} ${JSON.stringify(action.address)}`;
}

/** The top-level fields of two actions whose values differ, sorted. */
function differingFields(a: PlannedAction, b: PlannedAction): string[] {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...fields]
    .filter((field) => canonicalJson((a as unknown as Record<string, unknown>)[field])
      !== canonicalJson((b as unknown as Record<string, unknown>)[field]))
    .sort();
}
