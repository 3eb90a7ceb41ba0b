import { errorDiagnostic, diagnosticToProtocol } from "./diagnostics.js";
import type { HandlerContext } from "./handler-context.js";
import { toDynamicValue, type MoveResourceStateRequest, type MoveResourceStateResponse } from "./protocol-messages.js";
import { isResourceWithMoveState } from "./provider-definition.js";
import { impliedType } from "./schema.js";
import { thrownAnswer } from "./thrown-errors.js";
import { containsUnknown } from "./value.js";

/**
 * MoveResourceState: the target type's `moveState`, if it takes moved state (`ResourceWithMoveState`);
 * the state it returns checked as wholly known and encoded with the target's schema. Every failure
 * is an error diagnostic naming the source and the target.
 */
export async function moveResourceState<P>(context: HandlerContext<P>, request: MoveResourceStateRequest): Promise<MoveResourceStateResponse> {
  const what = `moving ${request.source_type_name} to ${request.target_type_name}`;
  const refuse = (detail: string) => ({ diagnostics: [diagnosticToProtocol(errorDiagnostic(`${what} is not supported`, detail))] });
  const resource = context.resources.get(request.target_type_name);
  if (resource === undefined) return refuse(`this provider has no resource type ${JSON.stringify(request.target_type_name)}`);
  if (!isResourceWithMoveState(resource)) return refuse(`${request.target_type_name} takes no state from other resource types: expected a moved block between two resources of one type`);
  try {
    const json = request.source_state?.json;
    if (json === undefined || json.length === 0) throw new Error("received no JSON source state: expected the source resource's state as terraform stores it");
    const state = await resource.moveState({
      log: context.log,
      sourceProviderAddress: request.source_provider_address,
      sourceTypeName: request.source_type_name,
      sourceSchemaVersion: request.source_schema_version,
      sourceState: JSON.parse(json.toString("utf8")) as unknown,
    });
    if (state === null) return refuse(`${request.target_type_name} takes no state from ${request.source_type_name} of ${request.source_provider_address}`);
    if (containsUnknown(state)) throw new Error("moveState returned a state with unknown values: expected a wholly known state (a bug in the provider)");
    return { target_state: toDynamicValue(state, impliedType(resource.schema)), diagnostics: [] };
  } catch (error) {
    return thrownAnswer(error, what, context.log);
  }
}
