import { errorDiagnostic, diagnosticToProtocol } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import { toDynamicValue, type MoveResourceStateRequest, type MoveResourceStateResponse } from "./protocol-messages.js";
import type { ResourceType } from "./provider-definition.js";
import { impliedType, type Schema, type StateOf } from "./schema.js";
import { attempt } from "./thrown-errors.js";
import { containsUnknown } from "./value.js";

/** What a resource's `moveState` receives: where the state comes from, and the state as parsed JSON (terraform's state file form). */
export interface MoveStateRequest {
  /** The source's provider, e.g. `terraform.io/builtin/terraform`, `registry.terraform.io/converge/converge`. */
  readonly sourceProviderAddress: string;
  readonly sourceTypeName: string;
  readonly sourceSchemaVersion: number;
  readonly sourceState: unknown;
}

/**
 * A resource type that takes state from another type (`moved { from = other_type.x  to = this.y }`,
 * terraform ≥ 1.8): the target's state for the source's, or null when it does not take state from
 * that type (terraform then reports that the move is not supported). terraform asks before it
 * configures the provider: the state is made from the source's alone, and `read`, which terraform
 * calls next, finds the live resource.
 */
export interface MovableResource<S extends Schema> {
  moveState(request: MoveStateRequest & { readonly log: Logger }): Promise<StateOf<S> | null>;
}

/**
 * Answers MoveResourceState for the target type: its `moveState`, if it has one; the state it returns checked as wholly known and encoded with the target's
 * schema. Every failure is an error diagnostic naming the source and the target.
 */
export async function moveResourceState<P>(resource: ResourceType<Schema, P> | { readonly unknown: unknown }, request: MoveResourceStateRequest, log: Logger): Promise<MoveResourceStateResponse> {
  const what = `moving ${request.source_type_name} to ${request.target_type_name}`;
  const refuse = (detail: string) => ({ diagnostics: [diagnosticToProtocol(errorDiagnostic(`${what} is not supported`, detail))] });
  if ("unknown" in resource) return refuse(`this provider has no resource type ${JSON.stringify(request.target_type_name)}`);
  const movable = resource as Partial<MovableResource<Schema>>;
  const moveState = movable.moveState;
  if (typeof moveState !== "function") return refuse(`${request.target_type_name} takes no state from other resource types: expected a moved block between two resources of one type`);
  const result = await attempt(what, log, async () => {
    const json = request.source_state?.json;
    if (json === undefined || json.length === 0) throw new Error("received no JSON source state: expected the source resource's state as terraform stores it");
    const state = await moveState.call(movable, {
      log,
      sourceProviderAddress: request.source_provider_address,
      sourceTypeName: request.source_type_name,
      sourceSchemaVersion: request.source_schema_version,
      sourceState: JSON.parse(json.toString("utf8")) as unknown,
    });
    if (state === null) return null;
    if (containsUnknown(state)) throw new Error("moveState returned a state with unknown values: expected a wholly known state (a bug in the provider)");
    return toDynamicValue(state, impliedType(resource.schema));
  });
  if (result.value === null) return refuse(`${request.target_type_name} takes no state from ${request.source_type_name} of ${request.source_provider_address}`);
  return { diagnostics: result.diagnostics.map(diagnosticToProtocol), ...(result.value === undefined ? {} : { target_state: result.value }) };
}
