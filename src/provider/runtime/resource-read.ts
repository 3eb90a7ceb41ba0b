import type { HandlerContext } from "./handler-context.js";
import { fromDynamicValue, toDynamicValue, type ReadResourceRequest, type ReadResourceResponse } from "./protocol-messages.js";
import { impliedType, type Schema, type StateOf } from "./schema.js";
import { thrownAnswer } from "./thrown-errors.js";
import { containsUnknown, type Value } from "./value.js";

/** ReadResource: the resource's `read` of the state terraform holds (null: gone), checked as wholly known; a failed read keeps the state terraform has. */
export async function readResource<P>(context: HandlerContext<P>, request: ReadResourceRequest): Promise<ReadResourceResponse> {
  const resource = context.resources.get(request.type_name);
  if (resource === undefined) return context.resources.unknownAnswer(request.type_name);
  const type = impliedType(resource.schema);
  let prior: Value;
  try {
    prior = fromDynamicValue(request.current_state, type);
  } catch (error) {
    return { private: request.private, ...thrownAnswer(error, `${request.type_name}: read`, context.log) };
  }
  try {
    const state: Value = prior === null ? null : await resource.read({ ...(await context.processState.context()), state: prior as StateOf<Schema> });
    if (containsUnknown(state)) throw new Error("read returned a state with unknown values: expected a wholly known state (a bug in the provider)");
    return { private: request.private, new_state: toDynamicValue(state, type), diagnostics: [] };
  } catch (error) {
    return { private: request.private, new_state: request.current_state, ...thrownAnswer(error, `${request.type_name}: read`, context.log) };
  }
}
