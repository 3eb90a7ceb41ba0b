import { errorDiagnostic } from "./diagnostics.js";
import { answer, type HandlerContext } from "./handler-context.js";
import { toDynamicValue, type ImportResourceStateRequest, type ImportResourceStateResponse } from "./protocol-messages.js";
import { isResourceWithImportState } from "./provider-definition.js";
import { impliedType } from "./schema.js";
import { thrownAnswer } from "./thrown-errors.js";
import { containsUnknown } from "./value.js";

/** ImportResourceState: the resource's `importState` of the ID, checked as wholly known; refused for a type without it (`ResourceWithImportState`). */
export async function importResourceState<P>(context: HandlerContext<P>, request: ImportResourceStateRequest): Promise<ImportResourceStateResponse> {
  const typeName = request.type_name;
  const resource = context.resources.get(typeName);
  if (resource === undefined) return context.resources.unknownAnswer(typeName);
  if (!isResourceWithImportState(resource)) return answer([errorDiagnostic(`${typeName} cannot be imported`, `the resource type ${typeName} has no import: expected it to be created by terraform`)]);
  try {
    const state = await resource.importState({ ...(await context.processState.context()), id: request.id });
    if (state === null) throw new Error(`no ${typeName} has the import id ${JSON.stringify(request.id)}`);
    if (containsUnknown(state)) throw new Error("import returned a state with unknown values: expected a wholly known state (a bug in the provider)");
    return { imported_resources: [{ type_name: typeName, state: toDynamicValue(state, impliedType(resource.schema)) }], diagnostics: [] };
  } catch (error) {
    return thrownAnswer(error, `${typeName}: import`, context.log);
  }
}
