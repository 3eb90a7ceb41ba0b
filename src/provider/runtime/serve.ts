import { Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { closeSync } from "node:fs";
import { basename } from "node:path";
import { goPluginServices } from "./go-plugin-services.js";
import { checkHandshake, handshakeLine } from "./handshake.js";
import { hclogLogger, logLevelFromEnvironment, type Logger } from "./hclog.js";
import { watchParent } from "./parent-watch.js";
import { loadProtocol } from "./protocol.js";
import type { ServedProvider } from "./provider-definition.js";
import { PROVIDER_RPCS } from "./provider-rpcs.js";
import type { UnaryHandler } from "./provider-service.js";
import { selfSignedCertificate } from "./self-signed-certificate.js";

/** Where the plugin's process talks; the process's own by default (tests pass others). */
export interface ServeOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: { write(text: string): unknown };
  readonly stderr?: { write(text: string): unknown };
  /** Called with the exit code when the plugin is done (default `process.exit`). */
  readonly exit?: (code: number) => void;
}

/**
 * Runs a provider as terraform's plugin: checks the go-plugin handshake (refusing to run when
 * terraform did not start it), listens on 127.0.0.1 with mutual TLS that accepts terraform's
 * certificate only, prints the handshake line, and serves tfplugin6's `Provider` until terraform
 * calls Shutdown or goes away. Logs go to stderr as hclog JSON lines.
 *
 * `load` is called only after the handshake line is out, so what the provider's code imports does
 * not delay terraform's start of the plugin: pass `() => import("./my-provider.js").then((m) => m.provider)`.
 */
export async function serveProvider<P>(load: () => ServedProvider<P> | Promise<ServedProvider<P>>, options: ServeOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const handshake = checkHandshake(env, basename(process.argv[1] ?? "this program"));
  if (!handshake.ok) {
    stderr.write(`${handshake.message}\n`);
    exit(1);
    return;
  }
  const log = hclogLogger((line) => stderr.write(line), logLevelFromEnvironment(env));
  const certificate = handshake.clientCertificatePem === undefined ? undefined : selfSignedCertificate();
  const protocol = loadProtocol();
  // channelz (gRPC's introspection service) is off: it books every call, and terraform makes thousands
  const server = new Server({ "grpc.max_receive_message_length": -1, "grpc.max_send_message_length": -1, "grpc.enable_channelz": 0 });

  let handlers: Promise<Readonly<Record<string, UnaryHandler>>> | undefined;
  const provider: UntypedServiceImplementation = {};
  for (const name of PROVIDER_RPCS) {
    provider[name] = (call: ServerUnaryCall<unknown, object>, callback: sendUnaryData<object>) => {
      handlers ??= startProvider<P>(load, protocol, log);
      handlers
        .then((table) => table[name]!(call.request as never))
        .then(
          (answer) => callback(null, answer),
          (error: unknown) => {
            log.error(`${name} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
            callback({ code: status.INTERNAL, details: `${name} failed: ${error instanceof Error ? error.message : String(error)}` });
          },
        );
    };
  }

  const shutdown = () => {
    log.debug("plugin shutting down");
    if (options.stdout === undefined) releaseStdout(log);
    plugin.endStreams();
    server.tryShutdown(() => exit(0));
    setTimeout(() => {
      server.forceShutdown();
      exit(0);
    }, 2_000).unref();
  };
  const plugin = goPluginServices(log, shutdown);
  server.addService(protocol.service("tfplugin6.Provider"), provider);
  server.addService(protocol.service("plugin.GRPCController"), plugin.controller);
  server.addService(protocol.service("plugin.GRPCStdio"), plugin.stdio);
  server.addService(protocol.service("plugin.GRPCBroker"), plugin.broker);

  const credentials =
    certificate === undefined
      ? ServerCredentials.createInsecure()
      : ServerCredentials.createSsl(
          Buffer.from(handshake.clientCertificatePem!),
          [{ private_key: Buffer.from(certificate.privateKeyPem), cert_chain: Buffer.from(certificate.certificatePem) }],
          true,
        );
  if (certificate === undefined) log.warn("PLUGIN_CLIENT_CERT is not set: serving without TLS, as go-plugin does");
  const port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", credentials, (error, bound) => (error ? reject(error) : resolve(bound))));
  stdout.write(handshakeLine(port, certificate?.der));
  log.debug("plugin listening", { address: `127.0.0.1:${port}`, tls: certificate !== undefined });

  handlers ??= startProvider<P>(load, protocol, log);
  setImmediate(() => {
    try {
      protocol.warm();
    } catch (error) {
      log.error("the protocol descriptor failed to load", { error: error instanceof Error ? error.message : String(error) });
    }
  });
  handlers.catch((error: unknown) => log.error("the provider definition failed to load", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }));
  watchParent(log, () => exit(0));
}

/**
 * Closes the process's stdout as the plugin shuts down, and sends later writes to the log.
 * go-plugin's client reads the plugin's stdout until EOF; when the EOF comes only with the exit,
 * that read races with the client closing the pipe after the exit, which terraform logs as an error
 * ("error encountered while scanning stdout: read |0: file already closed", go-plugin issue 298,
 * seen with Go providers too). Closed here, the EOF comes first. (Not earlier: a descriptor closed
 * while serving would be reused by the next connection.)
 */
function releaseStdout(log: Logger): void {
  process.stdout.write = ((chunk: string | Uint8Array) => {
    log.debug("stdout", { text: typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8") });
    return true;
  }) as typeof process.stdout.write;
  closeSync(1);
}

/** The provider's definition and its handlers, loaded after the handshake (the module and the definition's imports). */
async function startProvider<P>(load: () => ServedProvider<P> | Promise<ServedProvider<P>>, protocol: ReturnType<typeof loadProtocol>, log: Logger) {
  const service = import("./provider-service.js");
  const definition: ServedProvider<P> = await load();
  const { providerHandlers } = await service;
  return providerHandlers<P>(definition, protocol, log);
}
