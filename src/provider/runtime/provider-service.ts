import { formatPath } from "./attribute-path.js";
import { diagnosticToProtocol, errorDiagnostic, hasErrors, type Diagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import { decodeJsonValue } from "./json-codec.js";
import { readBreaches } from "./plan-rules.js";
import type { Protocol } from "./protocol.js";
import {
  fromDynamicValue,
  toDynamicValue,
  type ApplyResourceChangeRequest,
  type ConfigureProviderRequest,
  type PlanResourceChangeRequest,
  type ImportResourceStateRequest,
  type ReadDataSourceRequest,
  type ReadResourceRequest,
  type UpgradeResourceStateRequest,
  type ValidateConfigRequest,
  type ApplyResourceChangeResponse,
  type DiagnosticsAnswer,
  type GetFunctionsResponse,
  type GetMetadataResponse,
  type GetProviderSchemaResponse,
  type GetResourceIdentitySchemasResponse,
  type ImportResourceStateResponse,
  type MoveResourceStateRequest,
  type PlanResourceChangeResponse,
  type ReadDataSourceResponse,
  type ReadResourceResponse,
  type StopProviderResponse,
  type UpgradeResourceStateResponse,
  type ProtocolSchema,
  type ProviderHandlers,
  type ServerCapabilities,
} from "./protocol-messages.js";
import type { DataSourceType, ProviderDefinition, ResourceType, ServedProvider } from "./provider-definition.js";
import { applyResourceChange } from "./resource-apply.js";
import { planResourceChange } from "./resource-plan.js";
import { moveResourceState } from "./resource-move.js";
import { schemaToProtocol } from "./schema-protocol.js";
import { impliedType, schemaProblems, type ConfigOf, type Schema, type StateOf } from "./schema.js";
import { ProcessState } from "./process-state.js";
import { attempt } from "./thrown-errors.js";
import { containsUnknown, type Value } from "./value.js";


/**
 * The tfplugin6 `Provider` service over a provider definition, as handlers by RPC name. RPCs not
 * here (identity, ephemeral resources, lists, actions, state stores, functions' calls)
 * are answered UNIMPLEMENTED by the server; terraform 1.11 does not call them.
 */
export function providerHandlers<P>(served: ServedProvider<P>, protocol: Protocol, log: Logger): ProviderHandlers {
  const definition = served as unknown as RuntimeDefinition<P>;
  const processState = new ProcessState<P>(log);
  const capabilities: ServerCapabilities = { plan_destroy: true, get_provider_schema_optional: true, move_resource_state: true };
  let schemaAnswer: Buffer | undefined;

  const resourceOf = (typeName: string) => lookup(definition.resources, typeName, "resource");
  const dataSourceOf = (typeName: string) => lookup(definition.dataSources, typeName, "data source");
  const answer = (diagnostics: ReadonlyArray<Diagnostic>): DiagnosticsAnswer => ({ diagnostics: diagnostics.map(diagnosticToProtocol) });

  const validate = async (what: string, schema: Schema, check: ResourceType<Schema, P>["validate"], config: ValidateConfigRequest["config"]) => {
    const result = await attempt(`${what}: validate`, log, () => check?.({ config: fromDynamicValue(config, impliedType(schema)) as ConfigOf<Schema>, log }));
    return answer([...result.diagnostics, ...(result.value ?? [])]);
  };

  return {
    async GetMetadata(): Promise<GetMetadataResponse> {
      return {
        server_capabilities: capabilities,
        resources: Object.keys(definition.resources).map((type_name) => ({ type_name })),
        data_sources: Object.keys(definition.dataSources).map((type_name) => ({ type_name })),
        diagnostics: [],
      };
    },

    async GetProviderSchema(): Promise<Buffer> {
      if (schemaAnswer !== undefined) return schemaAnswer;
      const response: GetProviderSchemaResponse = {
        provider: schemaToProtocol(definition.schema),
        resource_schemas: schemasToProtocol(definition.resources),
        data_source_schemas: schemasToProtocol(definition.dataSources),
        server_capabilities: capabilities,
        diagnostics: definitionProblems<P>(served).map((problem) => diagnosticToProtocol(errorDiagnostic("invalid provider definition", `${problem} (a bug in the provider)`))),
      };
      // encoded once: terraform asks for the schemas several times per process
      schemaAnswer ??= protocol.encode("tfplugin6.GetProviderSchema.Response", response);
      return schemaAnswer;
    },

    async GetFunctions(): Promise<GetFunctionsResponse> {
      return { functions: {}, diagnostics: [] };
    },

    async GetResourceIdentitySchemas(): Promise<GetResourceIdentitySchemasResponse> {
      return { identity_schemas: {}, diagnostics: [] };
    },

    async ValidateProviderConfig(request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
      return validate("provider", definition.schema, definition.validate, request.config);
    },

    async ValidateResourceConfig(request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
      const resource = resourceOf(request.type_name);
      if ("unknown" in resource) return answer([resource.unknown]);
      return validate(request.type_name, resource.schema, resource.validate?.bind(resource), request.config);
    },

    async ValidateDataResourceConfig(request: ValidateConfigRequest): Promise<DiagnosticsAnswer> {
      const dataSource = dataSourceOf(request.type_name);
      if ("unknown" in dataSource) return answer([dataSource.unknown]);
      return validate(request.type_name, dataSource.schema, dataSource.validate?.bind(dataSource), request.config);
    },

    async ConfigureProvider(request: ConfigureProviderRequest): Promise<DiagnosticsAnswer> {
      const configured = attempt("provider: configure", log, () =>
        definition.configure({ config: fromDynamicValue(request.config, impliedType(definition.schema)) as ConfigOf<Schema>, terraformVersion: request.terraform_version, log }),
      );
      processState.configure(configured.then((result) => (hasErrors(result.diagnostics) ? Promise.reject(new Error("configure failed")) : (result.value as P))));
      return answer((await configured).diagnostics);
    },

    async UpgradeResourceState(request: UpgradeResourceStateRequest): Promise<UpgradeResourceStateResponse> {
      const resource = resourceOf(request.type_name);
      if ("unknown" in resource) return answer([resource.unknown]);
      const result = await attempt(`${request.type_name}: upgrade state`, log, async () => {
        const json = request.raw_state?.json;
        if (json === undefined || json.length === 0) {
          throw new Error(`received state without JSON (flatmap state of ${Object.keys(request.raw_state?.flatmap ?? {}).length} keys): expected JSON state, which terraform 0.12 and later write`);
        }
        const current = resource.schema.version ?? 0;
        let state: unknown = JSON.parse(json.toString("utf8"));
        if (request.version > current) throw new Error(`state version ${request.version} is newer than the resource's schema version ${current}: expected a provider at least as new as the one that wrote the state`);
        if (request.version < current) {
          if (resource.upgradeState === undefined) throw new Error(`state version ${request.version} is older than the resource's schema version ${current} and the resource has no upgradeState`);
          state = await resource.upgradeState({ version: request.version, state, log });
        }
        return toDynamicValue(decodeJsonValue(state, impliedType(resource.schema)), impliedType(resource.schema));
      });
      return result.value === undefined ? answer(result.diagnostics) : { upgraded_state: result.value, ...answer(result.diagnostics) };
    },

    async ReadResource(request: ReadResourceRequest): Promise<ReadResourceResponse> {
      const resource = resourceOf(request.type_name);
      if ("unknown" in resource) return answer([resource.unknown]);
      const type = impliedType(resource.schema);
      const prior = await attempt(`${request.type_name}: read`, log, () => fromDynamicValue(request.current_state, type));
      if (prior.value === undefined) return { private: request.private, ...answer(prior.diagnostics) };
      const priorState = prior.value;
      const result = await attempt(`${request.type_name}: read`, log, async () => {
        const state: Value = priorState === null ? null : await resource.read({ ...(await processState.context()), state: priorState as StateOf<Schema> });
        const unknown = containsUnknown(state);
        if (unknown) throw new Error("read returned a state with unknown values: expected a wholly known state (a bug in the provider)");
        return toDynamicValue(state, type);
      });
      // a failed read keeps the state terraform has
      return { private: request.private, new_state: result.value ?? request.current_state, ...answer(result.diagnostics) };
    },

    async PlanResourceChange(request: PlanResourceChangeRequest): Promise<PlanResourceChangeResponse> {
      const resource = resourceOf(request.type_name);
      if ("unknown" in resource) return answer([resource.unknown]);
      return planResourceChange<P>(request.type_name, resource, request, processState);
    },

    async ApplyResourceChange(request: ApplyResourceChangeRequest): Promise<ApplyResourceChangeResponse> {
      const resource = resourceOf(request.type_name);
      if ("unknown" in resource) return answer([resource.unknown]);
      return applyResourceChange<P>(request.type_name, resource, request, processState);
    },

    async ImportResourceState(request: ImportResourceStateRequest): Promise<ImportResourceStateResponse> {
      const resource = resourceOf(request.type_name);
      if ("unknown" in resource) return answer([resource.unknown]);
      const importState = resource.importState;
      if (importState === undefined) return answer([errorDiagnostic(`${request.type_name} cannot be imported`, `the resource type ${request.type_name} has no import: expected it to be created by terraform`)]);
      const result = await attempt(`${request.type_name}: import`, log, async () => {
        const state = await importState.call(resource, { ...(await processState.context()), id: request.id });
        if (state === null) throw new Error(`no ${request.type_name} has the import id ${JSON.stringify(request.id)}`);
        if (containsUnknown(state)) throw new Error("import returned a state with unknown values: expected a wholly known state (a bug in the provider)");
        return toDynamicValue(state, impliedType(resource.schema));
      });
      return result.value === undefined ? answer(result.diagnostics) : { imported_resources: [{ type_name: request.type_name, state: result.value }], ...answer(result.diagnostics) };
    },

    MoveResourceState: (request: MoveResourceStateRequest) => moveResourceState<P>(resourceOf(request.target_type_name), request, log),

    async ReadDataSource(request: ReadDataSourceRequest): Promise<ReadDataSourceResponse> {
      const dataSource = dataSourceOf(request.type_name);
      if ("unknown" in dataSource) return answer([dataSource.unknown]);
      const type = impliedType(dataSource.schema);
      const diagnostics: Diagnostic[] = [];
      const result = await attempt(`${request.type_name}: read`, log, async () => {
        const config = fromDynamicValue(request.config, type);
        const state: Value = await dataSource.read({ ...(await processState.context()), config: config as StateOf<Schema> });
        const breaches = readBreaches(dataSource.schema, config, state);
        diagnostics.push(...breaches.map((breach) => errorDiagnostic(`${request.type_name}: invalid data`, `${formatPath(breach.path)} ${breach.problem} (a bug in the provider)`, breach.path)));
        return breaches.length > 0 ? undefined : toDynamicValue(state, type);
      });
      const all = answer([...result.diagnostics, ...diagnostics]);
      return result.value === undefined ? all : { state: result.value, ...all };
    },

    async StopProvider(): Promise<StopProviderResponse> {
      processState.stop();
      return { Error: "" };
    },
  };
}

/**
 * The definition as the runtime calls it: `ServedProvider` erases the schemas' literal types (see
 * `ListedResource`), and each part is called with values decoded with its own schema.
 */
type RuntimeDefinition<P> = Omit<ProviderDefinition<Schema, P>, "resources" | "dataSources"> & {
  readonly resources: Readonly<Record<string, ResourceType<Schema, P>>>;
  readonly dataSources: Readonly<Record<string, DataSourceType<Schema, P>>>;
};

function schemasToProtocol(types: Readonly<Record<string, { readonly schema: Schema }>>): Record<string, ProtocolSchema> {
  const schemas: Record<string, ProtocolSchema> = {};
  for (const name of Object.keys(types)) schemas[name] = schemaToProtocol(types[name]!.schema);
  return schemas;
}

function lookup<T>(types: Readonly<Record<string, T>>, typeName: string, kind: string): T | { readonly unknown: Diagnostic } {
  if (Object.hasOwn(types, typeName)) return types[typeName]!;
  return { unknown: errorDiagnostic(`unknown ${kind} type ${typeName}`, `this provider has no ${kind} ${JSON.stringify(typeName)}: expected one of ${Object.keys(types).join(", ") || "none"}`) };
}

/** Problems of the definition itself: invalid schemas, type names without the provider's prefix. */
export function definitionProblems<P>(definition: ServedProvider<P>): string[] {
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
