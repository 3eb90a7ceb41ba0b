import { formatPath, pathToProtocol, type AttributePath } from "./attribute-path.js";
import { diagnosticToProtocol, errorDiagnostic, hasErrors, type Diagnostic } from "./diagnostics.js";
import { planBreaches, plannedChange, replacedPaths, type RuleBreach } from "./plan-rules.js";
import { fromDynamicValue, toDynamicValue, type PlanResourceChangeRequest, type PlanResourceChangeResponse } from "./protocol-messages.js";
import type { CallContext, PlanAction, PlanResult, ResourceType } from "./provider-definition.js";
import type { ProcessState } from "./process-state.js";
import { impliedType, type ConfigOf, type PlannedOf, type Schema, type StateOf } from "./schema.js";
import { attempt, diagnosticsOfThrown } from "./thrown-errors.js";
import type { Value } from "./value.js";

/**
 * PlanResourceChange: the runtime's plan (`plannedChange` on create and update, null on delete),
 * adjusted by the resource's `plan`, checked against terraform's rules, with the paths of changed
 * `requiresReplace` attributes. Deletes are planned here too (the provider
 * announces `plan_destroy`), so a resource can refuse one with an error.
 */
export async function planResourceChange<P>(
  typeName: string,
  resource: ResourceType<Schema, P>,
  request: PlanResourceChangeRequest,
  processState: ProcessState<P>,
): Promise<PlanResourceChangeResponse> {
  const what = `${typeName}: plan`;
  const type = impliedType(resource.schema);
  const base = { planned_private: request.prior_private };
  let prior: Value, proposed: Value, config: Value;
  let call: CallContext<P>;
  try {
    prior = fromDynamicValue(request.prior_state, type);
    proposed = fromDynamicValue(request.proposed_new_state, type);
    config = fromDynamicValue(request.config, type);
    call = await processState.context();
  } catch (error) {
    return { ...base, diagnostics: diagnosticsOfThrown(error, what, processState.log).map(diagnosticToProtocol) };
  }
  const action: PlanAction = proposed === null ? "delete" : prior === null ? "create" : "update";
  const planned = action === "delete" ? null : plannedChange(resource.schema, prior, proposed, config);

  const adjusted = await attempt(what, call.log, () =>
    resource.plan?.({
      ...call,
      action,
      config: config as ConfigOf<Schema> | null,
      prior: prior as StateOf<Schema> | null,
      planned: planned as PlannedOf<Schema> | null,
    }),
  );
  const result: PlanResult<Schema> = adjusted.value ?? {};
  const finalPlan = result.planned !== undefined ? (result.planned as Value) : planned;
  const diagnostics: Diagnostic[] = [...adjusted.diagnostics, ...(result.diagnostics ?? [])];
  diagnostics.push(...shapeBreaches(action, finalPlan).map((problem) => errorDiagnostic(`${typeName}: invalid plan`, `${problem} (a bug in the provider)`)));
  if (action !== "delete" && finalPlan !== null) {
    diagnostics.push(...planBreaches(resource.schema, prior, config, finalPlan).map((breach) => breachDiagnostic(typeName, breach)));
  }
  const requiresReplace = action === "update" ? distinctPaths([...replacedPaths(resource.schema, prior, finalPlan), ...(result.requiresReplace ?? [])]) : [];
  if (hasErrors(diagnostics)) return { ...base, diagnostics: diagnostics.map(diagnosticToProtocol) };

  try {
    return {
      ...base,
      planned_state: toDynamicValue(finalPlan, type),
      requires_replace: requiresReplace.map(pathToProtocol),
      diagnostics: diagnostics.map(diagnosticToProtocol),
    };
  } catch (error) {
    return { ...base, diagnostics: [...diagnostics, ...diagnosticsOfThrown(error, what, call.log)].map(diagnosticToProtocol) };
  }
}

function shapeBreaches(action: PlanAction, planned: Value): string[] {
  if (action === "delete" && planned !== null) return ["a delete was planned with a new state: expected null"];
  if (action !== "delete" && planned === null) return [`a ${action} was planned with a null state: expected the new state`];
  return [];
}

function breachDiagnostic(typeName: string, breach: RuleBreach): Diagnostic {
  return errorDiagnostic(`${typeName}: invalid plan`, `${formatPath(breach.path)} ${breach.problem} (a bug in the provider)`, breach.path);
}

function distinctPaths(paths: ReadonlyArray<AttributePath>): AttributePath[] {
  const seen = new Set<string>();
  return paths.filter((path) => {
    const key = JSON.stringify(path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
