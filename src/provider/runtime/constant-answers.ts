import { hclogLogger } from "./hclog.js";
import { loadProtocol } from "./protocol.js";
import type { ServedProvider } from "./provider-definition.js";
import { dispatch } from "./provider-rpcs.js";
import { providerHandlers } from "./provider-service.js";

/** The RPCs whose request is empty and whose answer depends on the provider's definition alone. */
export type ConstantRpc = "GetMetadata" | "GetProviderSchema" | "GetFunctions" | "GetResourceIdentitySchemas";

/** Those RPCs' answers as the protobuf bytes of their messages (without gRPC's framing). */
export type ConstantAnswers = Readonly<Record<ConstantRpc, Uint8Array>>;

/**
 * The constant answers of a provider definition, encoded by the runtime's own handlers and codecs:
 * what it would answer at run time. A build writes them (converge's: src/provider/provider-answers.ts)
 * for `ServeOptions.constantAnswers`, so that a process started only for schemas loads neither the
 * provider's code nor the protocol's codecs.
 */
export async function constantAnswers<P>(served: ServedProvider<P>): Promise<ConstantAnswers> {
  const protocol = loadProtocol();
  const handlers = providerHandlers(served, protocol, hclogLogger(() => undefined, "error"));
  const methods = protocol.service("tfplugin6.Provider");
  const encoded = async (name: ConstantRpc) => {
    const method = methods[name];
    if (method === undefined) throw new Error(`tfplugin6.Provider has no method ${name}: expected the protocol of proto/tfplugin6.proto`);
    return protocol.encode(method.responseType, await dispatch(handlers, name, {}));
  };
  return {
    GetMetadata: await encoded("GetMetadata"),
    GetProviderSchema: await encoded("GetProviderSchema"),
    GetFunctions: await encoded("GetFunctions"),
    GetResourceIdentitySchemas: await encoded("GetResourceIdentitySchemas"),
  };
}
