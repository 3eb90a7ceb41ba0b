import { formatPath } from "./attribute-path.js";
import { diagnosticToProtocol, errorDiagnostic, type Diagnostic } from "./diagnostics.js";
import { appliedBreaches } from "./plan-rules.js";
import { fromDynamicValue, toDynamicValue, type ApplyResourceChangeRequest, type ApplyResourceChangeResponse } from "./protocol-messages.js";
import type { HandlerContext } from "./handler-context.js";
import { impliedType, type ConfigOf, type PlannedOf, type Schema, type StateOf } from "./schema.js";
import { diagnosticsOfThrown, thrownAnswer } from "./thrown-errors.js";
import { containsUnknown, type Value } from "./value.js";

/**
 * ApplyResourceChange: a null planned state deletes, a null prior state creates, anything else
 * updates. The new state must be wholly known and keep every value the plan knew. When the call
 * fails the answer keeps what is known to exist: nothing after a failed create, the prior state
 * after a failed update or delete.
 */
export async function applyResourceChange<P>(context: HandlerContext<P>, request: ApplyResourceChangeRequest): Promise<ApplyResourceChangeResponse> {
  const typeName = request.type_name;
  const resource = context.resources.get(typeName);
  if (resource === undefined) return context.resources.unknownAnswer(typeName);
  const type = impliedType(resource.schema);
  let prior: Value, planned: Value, config: Value;
  try {
    prior = fromDynamicValue(request.prior_state, type);
    planned = fromDynamicValue(request.planned_state, type);
    config = fromDynamicValue(request.config, type);
  } catch (error) {
    return { private: request.planned_private, ...thrownAnswer(error, `${typeName}: apply`, context.log) };
  }
  const action = planned === null ? "delete" : prior === null ? "create" : "update";
  const answer = (state: Value, diagnostics: ReadonlyArray<Diagnostic>) => ({
    private: request.planned_private,
    new_state: toDynamicValue(state, type),
    diagnostics: diagnostics.map(diagnosticToProtocol),
  });
  try {
    const call = await context.processState.context();
    if (action === "delete") {
      await resource.delete({ ...call, prior: prior as StateOf<Schema> });
      return answer(null, []);
    }
    const applied: Value =
      action === "create"
        ? await resource.create({ ...call, planned: planned as PlannedOf<Schema>, config: config as ConfigOf<Schema> })
        : await resource.update({ ...call, prior: prior as StateOf<Schema>, planned: planned as PlannedOf<Schema>, config: config as ConfigOf<Schema> });
    const breaches = appliedBreaches(resource.schema, planned, applied).map((breach) =>
      errorDiagnostic(`${typeName}: inconsistent result after ${action}`, `${formatPath(breach.path)} ${breach.problem} (a bug in the provider)`, breach.path),
    );
    // a state with unknowns cannot be stored: keep what is known to exist instead
    return answer(containsUnknown(applied) ? (action === "create" ? null : prior) : applied, breaches);
  } catch (error) {
    return answer(action === "create" ? null : prior, diagnosticsOfThrown(error, `${typeName}: ${action}`, context.log));
  }
}
