import { diagnosticToProtocol, errorDiagnostic, type Diagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import type { Protocol } from "./protocol.js";
import type { DiagnosticsAnswer, ProviderRpc, RequestOf, ResponseOf, ServerCapabilities } from "./protocol-messages.js";
import type { DataSourceType, ProviderDefinition, ResourceType, ServedProvider } from "./provider-definition.js";
import { ProcessState } from "./process-state.js";
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

/**
 * What every RPC handler of one provider process works with (terraform-plugin-framework's server
 * and `context.Context` in one): the definition, its types by name, the process's state (what
 * `configure` made, the stop signal), the log, and the protocol's codecs.
 */
export interface HandlerContext<P> {
  readonly definition: RuntimeDefinition<P>;
  readonly resources: TypesByName<ResourceType<Schema, P>>;
  readonly dataSources: TypesByName<DataSourceType<Schema, P>>;
  readonly processState: ProcessState<P>;
  readonly log: Logger;
  readonly protocol: Protocol;
}

/**
 * The shape of every RPC handler: the process's context and the decoded request in, the response
 * out (or its bytes, encoded once). A thrown error becomes the handler's own answer (`thrownAnswer`,
 * thrown-errors.ts): a handler does not reject.
 */
export type RpcHandler<N extends ProviderRpc> = <P>(context: HandlerContext<P>, request: RequestOf<N>) => Promise<ResponseOf<N> | Buffer>;

/** One handler per RPC the runtime answers (provider-service.ts): an RPC added to `PROVIDER_RPCS` needs its line here. */
export type RpcHandlers = { readonly [N in ProviderRpc]: RpcHandler<N> };

/** The handlers of one provider process and the context they share: what `dispatch` (provider-rpcs.ts) calls. */
export interface ProviderHandlers<P> {
  readonly handlers: RpcHandlers;
  readonly context: HandlerContext<P>;
}

/** The context of a provider process's handlers: a new process state (unconfigured). */
export function handlerContext<P>(served: ServedProvider<P>, protocol: Protocol, log: Logger): HandlerContext<P> {
  const definition = runtimeDefinition(served);
  return {
    definition,
    resources: new TypesByName(definition.resources, "resource"),
    dataSources: new TypesByName(definition.dataSources, "data source"),
    processState: new ProcessState<P>(log),
    log,
    protocol,
  };
}

/** A definition's types of one sort (resources, data sources) by their full names. */
export class TypesByName<T> {
  constructor(
    private readonly types: Readonly<Record<string, T>>,
    private readonly sort: "resource" | "data source",
  ) {}

  /** The type of `typeName`; undefined when the provider has none (answer with `unknownAnswer`). */
  get(typeName: string): T | undefined {
    return Object.hasOwn(this.types, typeName) ? this.types[typeName] : undefined;
  }

  /** The answer to a call for a type the provider has not: an error that names the types there are. */
  unknownAnswer(typeName: string): DiagnosticsAnswer {
    return answer([
      errorDiagnostic(`unknown ${this.sort} type ${typeName}`, `this provider has no ${this.sort} ${JSON.stringify(typeName)}: expected one of ${Object.keys(this.types).join(", ") || "none"}`),
    ]);
  }
}

/** What the runtime tells terraform it does beyond the protocol's minimum. */
export const SERVER_CAPABILITIES: ServerCapabilities = { plan_destroy: true, get_provider_schema_optional: true, move_resource_state: true };

/** An answer holding only diagnostics. */
export function answer(diagnostics: ReadonlyArray<Diagnostic>): DiagnosticsAnswer {
  return { diagnostics: diagnostics.map(diagnosticToProtocol) };
}
