import { diagnosticToProtocol, errorDiagnostic, type Diagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import type { DiagnosticsAnswer, ServerCapabilities } from "./protocol-messages.js";
import type { DataSourceType, ProviderDefinition, ResourceType, ServedProvider } from "./provider-definition.js";
import type { ProcessState } from "./process-state.js";
import type { Schema } from "./schema.js";

/** The definition as the runtime calls it: each part with values decoded with its own schema (see `runtimeDefinition`). */
export type RuntimeDefinition<P> = Omit<ProviderDefinition<Schema, P>, "resources" | "dataSources"> & {
  readonly resources: Readonly<Record<string, ResourceType<Schema, P>>>;
  readonly dataSources: Readonly<Record<string, DataSourceType<Schema, P>>>;
};

/**
 * A served provider as the runtime calls it. `ServedProvider` erases the schemas' literal types (see
 * `ListedResource`): TypeScript cannot see that a resource of one schema, called only with values
 * decoded with that schema, is a resource of the general `Schema` (a schema's value types are
 * conditional types, so `PlanResult<S>` is invariant in `S`). This is the one place that says so.
 */
export function runtimeDefinition<P>(served: ServedProvider<P>): RuntimeDefinition<P> {
  return served as unknown as RuntimeDefinition<P>;
}

/** What every RPC handler of one provider process works with: the definition, the process's state, the log. */
export interface HandlerContext<P> {
  readonly definition: RuntimeDefinition<P>;
  readonly processState: ProcessState<P>;
  readonly log: Logger;
}

/** What the runtime tells terraform it does beyond the protocol's minimum. */
export const SERVER_CAPABILITIES: ServerCapabilities = { plan_destroy: true, get_provider_schema_optional: true, move_resource_state: true };

/** An answer holding only diagnostics. */
export function answer(diagnostics: ReadonlyArray<Diagnostic>): DiagnosticsAnswer {
  return { diagnostics: diagnostics.map(diagnosticToProtocol) };
}

/** A type of the definition by its full name, or the diagnostic that names the types there are. */
export function lookup<T>(types: Readonly<Record<string, T>>, typeName: string, kind: string): T | { readonly unknown: Diagnostic } {
  const found = Object.hasOwn(types, typeName) ? types[typeName] : undefined;
  if (found !== undefined) return found;
  return { unknown: errorDiagnostic(`unknown ${kind} type ${typeName}`, `this provider has no ${kind} ${JSON.stringify(typeName)}: expected one of ${Object.keys(types).join(", ") || "none"}`) };
}

/** Runs `handle` with the resource type of `typeName`, or answers that the provider has none. */
export async function withResource<P, R>(context: HandlerContext<P>, typeName: string, handle: (resource: ResourceType<Schema, P>) => Promise<R>): Promise<R | DiagnosticsAnswer> {
  const resource = lookup(context.definition.resources, typeName, "resource");
  if ("unknown" in resource) return answer([resource.unknown]);
  return handle(resource);
}

/** Runs `handle` with the data source type of `typeName`, or answers that the provider has none. */
export async function withDataSource<P, R>(context: HandlerContext<P>, typeName: string, handle: (dataSource: DataSourceType<Schema, P>) => Promise<R>): Promise<R | DiagnosticsAnswer> {
  const dataSource = lookup(context.definition.dataSources, typeName, "data source");
  if ("unknown" in dataSource) return answer([dataSource.unknown]);
  return handle(dataSource);
}
