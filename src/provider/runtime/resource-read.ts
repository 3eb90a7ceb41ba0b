import type { ProcessState } from "./process-state.js";
import { fromDynamicValue, toDynamicValue, type ReadResourceRequest, type ReadResourceResponse } from "./protocol-messages.js";
import type { ResourceType } from "./provider-definition.js";
import { answer } from "./handler-context.js";
import { impliedType, type Schema, type StateOf } from "./schema.js";
import { attempt } from "./thrown-errors.js";
import { containsUnknown, type Value } from "./value.js";

/** ReadResource: the resource's `read` of the state terraform holds (null: gone), checked as wholly known; a failed read keeps the state terraform has. */
export async function readResource<P>(typeName: string, resource: ResourceType<Schema, P>, request: ReadResourceRequest, processState: ProcessState<P>): Promise<ReadResourceResponse> {
  const log = processState.log;
  const type = impliedType(resource.schema);
  const prior = await attempt(`${typeName}: read`, log, () => fromDynamicValue(request.current_state, type));
  if (prior.value === undefined) return { private: request.private, ...answer(prior.diagnostics) };
  const priorState = prior.value;
  const result = await attempt(`${typeName}: read`, log, async () => {
    const state: Value = priorState === null ? null : await resource.read({ ...(await processState.context()), state: priorState as StateOf<Schema> });
    if (containsUnknown(state)) throw new Error("read returned a state with unknown values: expected a wholly known state (a bug in the provider)");
    return toDynamicValue(state, type);
  });
  return { private: request.private, new_state: result.value ?? request.current_state, ...answer(result.diagnostics) };
}
