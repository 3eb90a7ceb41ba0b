import { hclogLogger } from "./hclog.js";
import { loadProtocol } from "./protocol.js";
import type { ServedProvider } from "./provider-definition.js";
import { toDynamicValue, type ProviderRpc, type ValidateConfigRequest } from "./protocol-messages.js";
import { dispatch } from "./provider-rpcs.js";
import { providerHandlers } from "./provider-service.js";
import { impliedType, type Schema } from "./schema.js";
import type { Value } from "./value.js";

/** The validation RPCs, which need nothing but the provider's code: what `warmUp` calls. */
export type WarmRpc = Extract<ProviderRpc, "ValidateProviderConfig" | "ValidateResourceConfig" | "ValidateDataResourceConfig">;

/** One call of `warmUp`: a configuration, its attributes left out null (as terraform sends an unset one). */
export interface WarmCall {
  readonly rpc: WarmRpc;
  /** The resource's or data source's type name; the provider's name for ValidateProviderConfig. */
  readonly typeName: string;
  readonly config: Readonly<Record<string, Value>>;
}

/**
 * Answers `calls` with a provider's handlers as the server does (the configuration as msgpack, the
 * handlers of `provider-service.ts`, the answer encoded by the protocol's codecs), in this process
 * and with no connection, and fails when one is not answered without diagnostics: the calls must be
 * valid configuration, so that they take the path a valid one takes. For a V8 startup snapshot
 * (src/provider/main.ts): the code of that path is compiled, and zod's parsers of the schemas it
 * checks are made, when the snapshot is taken, not in every process terraform starts. The handlers
 * are made for the warm-up and dropped after it: no process state is kept.
 */
export async function warmUp<P>(served: ServedProvider<P>, calls: ReadonlyArray<WarmCall>): Promise<void> {
  const protocol = loadProtocol();
  const log = hclogLogger(() => undefined, "error");
  const handlers = providerHandlers(served, protocol, log);
  const method = protocol.service("tfplugin6.Provider");
  for (const call of calls) {
    const schema = schemaOf(served, call);
    const config = { ...Object.fromEntries(Object.keys(schema.attributes).map((name) => [name, null])), ...call.config };
    const { msgpack } = toDynamicValue(config, impliedType(schema));
    const request: ValidateConfigRequest = { type_name: call.typeName, config: { msgpack: Buffer.from(msgpack.buffer, msgpack.byteOffset, msgpack.byteLength), json: Buffer.alloc(0) } };
    const answer = await dispatch(handlers, call.rpc, request);
    const diagnostics = answer instanceof Uint8Array ? [] : answer.diagnostics;
    if (diagnostics.length > 0) throw new Error(`warm-up ${call.rpc} of ${call.typeName} was answered with diagnostics (its configuration must be valid): ${diagnostics.map((diagnostic) => diagnostic.summary).join("; ")}`);
    protocol.encode(method[call.rpc]!.responseType, answer);
  }
}

function schemaOf<P>(served: ServedProvider<P>, call: WarmCall): Schema {
  const listed = call.rpc === "ValidateProviderConfig" ? served : call.rpc === "ValidateResourceConfig" ? served.resources[call.typeName] : served.dataSources[call.typeName];
  if (listed === undefined) throw new Error(`warm-up ${call.rpc}: the provider has no ${call.typeName}`);
  return listed.schema;
}
