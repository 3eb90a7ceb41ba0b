import { errorDiagnostic } from "./diagnostics.js";
import { answer, type HandlerContext } from "./handler-context.js";
import { fromDynamicValue, type DiagnosticsAnswer, type DynamicValueMessage, type ValidateConfigRequest } from "./protocol-messages.js";
import type { ResourceType } from "./provider-definition.js";
import { impliedType, type ConfigOf, type Schema } from "./schema.js";
import { thrownAnswer } from "./thrown-errors.js";

/** ValidateProviderConfig: the provider's `validate` of its configuration. */
export function validateProviderConfig<P>(context: HandlerContext<P>, request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
  return validate(context, "provider", context.definition, request.config);
}

/** ValidateResourceConfig: the resource type's `validate` of a resource's configuration. */
export function validateResourceConfig<P>(context: HandlerContext<P>, request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
  const resource = context.resources.get(request.type_name);
  if (resource === undefined) return Promise.resolve(context.resources.unknownAnswer(request.type_name));
  return validate(context, request.type_name, resource, request.config);
}

/** ValidateDataResourceConfig: the data source type's `validate` of a data block's configuration. */
export function validateDataResourceConfig<P>(context: HandlerContext<P>, request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
  const dataSource = context.dataSources.get(request.type_name);
  if (dataSource === undefined) return Promise.resolve(context.dataSources.unknownAnswer(request.type_name));
  return validate(context, request.type_name, dataSource, request.config);
}

/** What validates configuration of its schema: the provider, a resource type, a data source type. */
type Validated = Pick<ResourceType<Schema>, "schema" | "validate">;

/**
 * A `validate` of configuration decoded with its schema: its diagnostics, or a thrown error's. A
 * configuration that is no object at all (null: terraform always sends one, its unset attributes
 * null) is refused with one error before any `validate` sees it.
 */
async function validate<P>(context: HandlerContext<P>, what: string, validated: Validated, config: DynamicValueMessage | null): Promise<DiagnosticsAnswer> {
  try {
    const decoded = fromDynamicValue(config, impliedType(validated.schema));
    if (decoded === null) {
      return answer([errorDiagnostic(`${what}: no configuration`, "the request's configuration is null: expected an object of the schema's attributes (terraform sends one, with null for each attribute not set)")]);
    }
    return answer((await validated.validate?.({ config: decoded as ConfigOf<Schema>, log: context.log })) ?? []);
  } catch (error) {
    return thrownAnswer(error, `${what}: validate`, context.log);
  }
}
