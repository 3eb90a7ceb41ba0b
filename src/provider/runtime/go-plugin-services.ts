import type { GrpcMethod } from "./grpc-connection.js";
import type { Logger } from "./hclog.js";
import type { Protocol } from "./protocol.js";

/**
 * The methods go-plugin's client expects of every gRPC plugin besides the plugin's own, by path:
 *
 * - `plugin.GRPCController/Shutdown` ends the plugin (terraform calls it when done with it);
 * - `plugin.GRPCStdio/StreamStdio` is opened by the client at connection to mirror the plugin's
 *   stdout and stderr; this runtime writes its logs to stderr itself, so the stream stays open and
 *   silent until shutdown (an UNIMPLEMENTED answer would be logged as a warning);
 * - `plugin.GRPCBroker/StartStream` is opened by the client to offer extra connections, which a
 *   terraform provider never uses: it is held open and its messages ignored.
 */
export function goPluginMethods(protocol: Protocol, log: Logger, onShutdown: () => void): Map<string, GrpcMethod> {
  const shutdown = protocol.service("plugin.GRPCController")["Shutdown"]!;
  return new Map<string, GrpcMethod>([
    [
      shutdown.path,
      {
        kind: "unary",
        async answer() {
          log.debug("terraform asked the plugin to shut down");
          setImmediate(onShutdown);
          return Buffer.alloc(0); // plugin.Empty
        },
      },
    ],
    [protocol.service("plugin.GRPCStdio")["StreamStdio"]!.path, { kind: "held" }],
    [protocol.service("plugin.GRPCBroker")["StartStream"]!.path, { kind: "held", endsWithClient: true, onMessage: () => log.trace("ignoring a broker message: this plugin offers no extra connections") }],
  ]);
}
