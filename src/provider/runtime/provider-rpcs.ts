import type { ProtocolMethod, Protocol } from "./protocol.js";
import type { ProviderHandlers, RpcHandler } from "./handler-context.js";
import type { ProviderRpc, ProviderRpcMessages, RequestOf, ResponseOf } from "./protocol-messages.js";

/**
 * The RPCs of tfplugin6's `Provider` service the runtime answers (`provider-service.ts`), known
 * before that module loads; the server answers the others UNIMPLEMENTED.
 */
export const PROVIDER_RPCS = [
  "GetMetadata",
  "GetProviderSchema",
  "GetFunctions",
  "GetResourceIdentitySchemas",
  "ValidateProviderConfig",
  "ValidateResourceConfig",
  "ValidateDataResourceConfig",
  "ConfigureProvider",
  "UpgradeResourceState",
  "ReadResource",
  "PlanResourceChange",
  "ApplyResourceChange",
  "ImportResourceState",
  "MoveResourceState",
  "ReadDataSource",
  "StopProvider",
] as const satisfies ReadonlyArray<keyof ProviderRpcMessages>;

/** Calls the handler of `name` with the process's context and the request: the table's mapped type carries the request's and the response's types through. */
export function dispatch<N extends ProviderRpc, P>({ handlers, context }: ProviderHandlers<P>, name: N, request: RequestOf<N>): Promise<ResponseOf<N> | Buffer> {
  const handler: RpcHandler<N> = handlers[name];
  return handler(context, request);
}

/**
 * A request of RPC `N` decoded from its bytes. protobufjs decodes by the method's message descriptor
 * (protocol.ts), which is the `.proto` the request types of protocol-messages.ts are written from:
 * this is where the decoded object is taken to be of its RPC's request type.
 */
export function decodeRequest<N extends ProviderRpc>(protocol: Protocol, method: ProtocolMethod, bytes: Buffer): RequestOf<N> {
  return protocol.decode(method.requestType, bytes) as RequestOf<N>;
}
