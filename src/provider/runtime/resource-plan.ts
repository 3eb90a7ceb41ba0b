import { formatPath, pathToProtocol, type AttributePath } from "./attribute-path.js";
import { diagnosticToProtocol, errorDiagnostic, hasErrors, type Diagnostic } from "./diagnostics.js";
import { planBreaches, plannedChange, replacedPaths, type RuleBreach } from "./plan-rules.js";
import { fromDynamicValue, toDynamicValue, type PlanResourceChangeRequest, type PlanResourceChangeResponse } from "./protocol-messages.js";
import type { HandlerContext } from "./handler-context.js";
import type { CallContext, PlanAction, PlanResult } from "./provider-definition.js";
import { impliedType, type ConfigOf, type PlannedOf, type Schema, type StateOf } from "./schema.js";
import { diagnosticsOfThrown, thrownAnswer } from "./thrown-errors.js";
import type { Value } from "./value.js";

/**
 * PlanResourceChange: the runtime's plan (`plannedChange` on create and update, null on delete),
 * adjusted by the resource's `plan`, checked against terraform's rules, with the paths of changed
 * `requiresReplace` attributes. Deletes are planned here too (the provider
 * announces `plan_destroy`), so a resource can refuse one with an error.
 */
export async function planResourceChange<P>(context: HandlerContext<P>, request: PlanResourceChangeRequest): Promise<PlanResourceChangeResponse> {
  const typeName = request.type_name;
  const resource = context.resources.get(typeName);
  if (resource === undefined) return context.resources.unknownAnswer(typeName);
  const type = impliedType(resource.schema);
  let prior: Value, proposed: Value, config: Value;
  let call: CallContext<P>;
  try {
    prior = fromDynamicValue(request.prior_state, type);
    proposed = fromDynamicValue(request.proposed_new_state, type);
    config = fromDynamicValue(request.config, type);
    call = await context.processState.context();
  } catch (error) {
    return { planned_private: request.prior_private, ...thrownAnswer(error, `${typeName}: plan`, context.log) };
  }
  const action: PlanAction = proposed === null ? "delete" : prior === null ? "create" : "update";
  const planned = action === "delete" ? null : plannedChange(resource.schema, prior, proposed, config);

  const diagnostics: Diagnostic[] = [];
  let result: PlanResult<Schema> = {};
  try {
    result = (await resource.plan?.({ ...call, action, config: config as ConfigOf<Schema> | null, prior: prior as StateOf<Schema> | null, planned: planned as PlannedOf<Schema> | null })) ?? {};
  } catch (error) {
    diagnostics.push(...diagnosticsOfThrown(error, `${typeName}: plan`, context.log));
  }
  const finalPlan = result.planned !== undefined ? (result.planned as Value) : planned;
  if (result.diagnostics !== undefined) diagnostics.push(...result.diagnostics);
  diagnostics.push(...shapeBreaches(action, finalPlan).map((problem) => errorDiagnostic(`${typeName}: invalid plan`, `${problem} (a bug in the provider)`)));
  if (action !== "delete" && finalPlan !== null) {
    diagnostics.push(...planBreaches(resource.schema, prior, config, finalPlan).map((breach) => breachDiagnostic(typeName, breach)));
  }
  const requiresReplace = action === "update" ? distinctPaths([...replacedPaths(resource.schema, prior, finalPlan), ...(result.requiresReplace ?? [])]) : [];
  if (hasErrors(diagnostics)) return { planned_private: request.prior_private, diagnostics: diagnostics.map(diagnosticToProtocol) };

  try {
    return {
      planned_private: request.prior_private,
      planned_state: toDynamicValue(finalPlan, type),
      requires_replace: requiresReplace.map(pathToProtocol),
      diagnostics: diagnostics.map(diagnosticToProtocol),
    };
  } catch (error) {
    return { planned_private: request.prior_private, diagnostics: [...diagnostics, ...diagnosticsOfThrown(error, `${typeName}: plan`, context.log)].map(diagnosticToProtocol) };
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
