import type { PlannedAction } from "../../reconcile/model.js";
import type { OnePlan } from "../converge-session.js";
import { DiagnosticsError, errorDiagnostic, type Diagnostic } from "../runtime/index.js";
import type { KindBinding, KindDocument } from "./binding.js";

/** A problem of the engine or the schema, as a diagnostic on the attribute it is about. */
export function problemDiagnostic(binding: KindDocument, path: string, message: string): Diagnostic {
  const at = binding.attributeOf(path);
  // the engine's messages start with the document's field path; terraform users know the attribute
  const named = at !== undefined && message.startsWith(at.prefix) && /^[\s.[]/.test(message.slice(at.prefix.length));
  return errorDiagnostic(named ? `${at.attribute}${message.slice(at.prefix.length)}` : message, undefined, at === undefined ? undefined : [at.attribute]);
}

/** An action a converge protection refused, as an error on the attribute of its first change; a refused delete says how to forget the resource instead. */
export function refusalDiagnostic<Live>(binding: KindBinding<Live>, action: PlannedAction, deleting: boolean): Diagnostic {
  const field = action.changes[0]?.path;
  const at = field === undefined ? undefined : binding.attributeOf(`spec.${field}`);
  // a refused delete: terraform can still stop managing the resource without deleting it
  const forget = deleting
    ? " To stop managing it without deleting it, remove it from the state: a removed block with lifecycle { destroy = false }, or terraform state rm."
    : "";
  return errorDiagnostic(
    `${binding.typeName}: refused by a converge protection`,
    `${action.reason ?? "refused"}. Nothing was sent to the service.${forget}`,
    at === undefined ? undefined : [at.attribute],
  );
}

/** The diagnostics of a plan that has no action to take, or of a refused action; empty when the action may go ahead. */
export function planDiagnostics<Live>(binding: KindBinding<Live>, planned: OnePlan, deleting = false): Diagnostic[] {
  if ("problems" in planned) return planned.problems.map((problem) => problemDiagnostic(binding, problem.path, problem.message));
  return planned.action.type === "refused" ? [refusalDiagnostic(binding, planned.action, deleting)] : [];
}

/** Throws the diagnostics as a DiagnosticsError when they hold an error. */
export function throwIfErrors(diagnostics: ReadonlyArray<Diagnostic>): void {
  if (diagnostics.some((diagnostic) => diagnostic.severity === "error")) throw new DiagnosticsError(diagnostics);
}
