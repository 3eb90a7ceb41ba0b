import { errorDiagnostic } from "./diagnostics.js";
import { answer } from "./handler-context.js";
import type { ProcessState } from "./process-state.js";
import { toDynamicValue, type ImportResourceStateRequest, type ImportResourceStateResponse } from "./protocol-messages.js";
import { isResourceWithImportState, type ResourceType } from "./provider-definition.js";
import { impliedType, type Schema } from "./schema.js";
import { attempt } from "./thrown-errors.js";
import { containsUnknown } from "./value.js";

/** ImportResourceState: the resource's `importState` of the ID, checked as wholly known; refused for a type without it (`ResourceWithImportState`). */
export async function importResourceState<P>(typeName: string, resource: ResourceType<Schema, P>, request: ImportResourceStateRequest, processState: ProcessState<P>): Promise<ImportResourceStateResponse> {
  if (!isResourceWithImportState(resource)) return answer([errorDiagnostic(`${typeName} cannot be imported`, `the resource type ${typeName} has no import: expected it to be created by terraform`)]);
  const result = await attempt(`${typeName}: import`, processState.log, async () => {
    const state = await resource.importState({ ...(await processState.context()), id: request.id });
    if (state === null) throw new Error(`no ${typeName} has the import id ${JSON.stringify(request.id)}`);
    if (containsUnknown(state)) throw new Error("import returned a state with unknown values: expected a wholly known state (a bug in the provider)");
    return toDynamicValue(state, impliedType(resource.schema));
  });
  return result.value === undefined ? answer(result.diagnostics) : { imported_resources: [{ type_name: typeName, state: result.value }], ...answer(result.diagnostics) };
}
