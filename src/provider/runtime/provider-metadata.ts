import { diagnosticToProtocol, errorDiagnostic } from "./diagnostics.js";
import { SERVER_CAPABILITIES, type HandlerContext } from "./handler-context.js";
import type {
  GetFunctionsResponse,
  GetMetadataResponse,
  GetProviderSchemaResponse,
  GetResourceIdentitySchemasResponse,
  ProtocolSchema,
} from "./protocol-messages.js";
import type { ServedProvider } from "./provider-definition.js";
import { schemaToProtocol } from "./schema-protocol.js";
import { schemaProblems, type Schema } from "./schema.js";

/** GetMetadata: the server's capabilities and the type names of the resources and data sources. */
export async function getMetadata<P>({ definition }: HandlerContext<P>): Promise<GetMetadataResponse> {
  return {
    server_capabilities: SERVER_CAPABILITIES,
    resources: Object.keys(definition.resources).map((type_name) => ({ type_name })),
    data_sources: Object.keys(definition.dataSources).map((type_name) => ({ type_name })),
    diagnostics: [],
  };
}

/** Each process's GetProviderSchema answer by its handlers' context, encoded on the first call (terraform asks for the schemas several times per process). */
const encodedSchemas = new WeakMap<object, Buffer>();

/** GetProviderSchema: the provider's, resources' and data sources' schemas, and the definition's problems as error diagnostics. */
export async function getProviderSchema<P>(context: HandlerContext<P>): Promise<Buffer> {
  const encoded = encodedSchemas.get(context);
  if (encoded !== undefined) return encoded;
  const { definition } = context;
  const response: GetProviderSchemaResponse = {
    provider: schemaToProtocol(definition.schema),
    resource_schemas: schemasToProtocol(definition.resources),
    data_source_schemas: schemasToProtocol(definition.dataSources),
    server_capabilities: SERVER_CAPABILITIES,
    diagnostics: definitionProblems<P>(definition).map((problem) => diagnosticToProtocol(errorDiagnostic("invalid provider definition", `${problem} (a bug in the provider)`))),
  };
  const bytes = context.protocol.encode("tfplugin6.GetProviderSchema.Response", response);
  encodedSchemas.set(context, bytes);
  return bytes;
}

/** GetFunctions: the runtime serves no provider functions. */
export async function getFunctions(): Promise<GetFunctionsResponse> {
  return { functions: {}, diagnostics: [] };
}

/** GetResourceIdentitySchemas: no resource has an identity schema. */
export async function getResourceIdentitySchemas(): Promise<GetResourceIdentitySchemasResponse> {
  return { identity_schemas: {}, diagnostics: [] };
}

function schemasToProtocol(types: Readonly<Record<string, { readonly schema: Schema }>>): Record<string, ProtocolSchema> {
  return Object.fromEntries(Object.entries(types).map(([name, type]) => [name, schemaToProtocol(type.schema)]));
}

/** Problems of the definition itself: invalid schemas, type names without the provider's prefix. */
export function definitionProblems<P>(definition: Pick<ServedProvider<P>, "name" | "schema" | "resources" | "dataSources">): string[] {
  const problems = schemaProblems(definition.schema, "provider", "provider");
  const named = (kind: "resource" | "data source", types: Readonly<Record<string, { readonly schema: Schema }>>) => {
    for (const [name, type] of Object.entries(types)) {
      if (!name.startsWith(`${definition.name}_`)) problems.push(`${kind} ${name}: the type name does not start with "${definition.name}_": terraform expects the provider's name as prefix`);
      problems.push(...schemaProblems(type.schema, `${kind} ${name}`, kind));
    }
  };
  named("resource", definition.resources);
  named("data source", definition.dataSources);
  return problems;
}
