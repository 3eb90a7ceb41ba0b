import { answer, withDataSource, withResource, type HandlerContext } from "./handler-context.js";
import type { Logger } from "./hclog.js";
import { fromDynamicValue, type DiagnosticsAnswer, type ValidateConfigRequest } from "./protocol-messages.js";
import type { ResourceType } from "./provider-definition.js";
import { impliedType, type ConfigOf, type Schema } from "./schema.js";
import { attempt } from "./thrown-errors.js";

/** ValidateProviderConfig: the provider's `validate` of its configuration. */
export function validateProviderConfig<P>({ definition, log }: HandlerContext<P>, request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
  return validate(log, "provider", definition.schema, definition.validate, request.config);
}

/** ValidateResourceConfig: the resource type's `validate` of a resource's configuration. */
export function validateResourceConfig<P>(context: HandlerContext<P>, request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
  return withResource(context, request.type_name, (resource) => validate(context.log, request.type_name, resource.schema, resource.validate?.bind(resource), request.config));
}

/** ValidateDataResourceConfig: the data source type's `validate` of a data block's configuration. */
export function validateDataResourceConfig<P>(context: HandlerContext<P>, request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
  return withDataSource(context, request.type_name, (dataSource) => validate(context.log, request.type_name, dataSource.schema, dataSource.validate?.bind(dataSource), request.config));
}

/** A `validate` of configuration decoded with `schema`: its diagnostics, and a thrown error's. */
async function validate(log: Logger, what: string, schema: Schema, check: ResourceType<Schema>["validate"], config: ValidateConfigRequest["config"]): Promise<DiagnosticsAnswer> {
  const result = await attempt(`${what}: validate`, log, () => check?.({ config: fromDynamicValue(config, impliedType(schema)) as ConfigOf<Schema>, log }));
  return answer([...result.diagnostics, ...(result.value ?? [])]);
}
