import type { ServerDuplexStream, ServerWritableStream, UntypedServiceImplementation } from "@grpc/grpc-js";
import type { Logger } from "./hclog.js";

/**
 * The services go-plugin's client expects of every gRPC plugin besides the plugin's own:
 *
 * - `plugin.GRPCController/Shutdown` ends the plugin (terraform calls it when done with it);
 * - `plugin.GRPCStdio/StreamStdio` is opened by the client at connection to mirror the plugin's
 *   stdout and stderr; this runtime writes its logs to stderr itself, so the stream stays open and
 *   silent until shutdown (an UNIMPLEMENTED answer would be logged as a warning);
 * - `plugin.GRPCBroker/StartStream` is opened by the client to offer extra connections, which a
 *   terraform provider never uses: it is held open and its messages ignored.
 */
export interface GoPluginServices {
  readonly controller: UntypedServiceImplementation;
  readonly stdio: UntypedServiceImplementation;
  readonly broker: UntypedServiceImplementation;
  /** Ends the streams held open, so the server can close. */
  endStreams(): void;
}

export function goPluginServices(log: Logger, onShutdown: () => void): GoPluginServices {
  const open = new Set<{ end(): void }>();
  const hold = (stream: { end(): void; on(event: "cancelled" | "close", listener: () => void): unknown }) => {
    open.add(stream);
    const release = () => open.delete(stream);
    stream.on("cancelled", release);
    stream.on("close", release);
  };
  return {
    controller: {
      Shutdown(_call: unknown, callback: (error: null, answer: object) => void) {
        log.debug("terraform asked the plugin to shut down");
        callback(null, {});
        onShutdown();
      },
    },
    stdio: {
      StreamStdio(call: ServerWritableStream<unknown, unknown>) {
        hold(call);
      },
    },
    broker: {
      StartStream(call: ServerDuplexStream<unknown, unknown>) {
        hold(call);
        call.on("data", () => log.trace("ignoring a broker message: this plugin offers no extra connections"));
        call.on("end", () => call.end());
      },
    },
    endStreams() {
      for (const stream of open) stream.end();
      open.clear();
    },
  };
}
