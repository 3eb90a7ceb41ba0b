import { closeSync, writeSync } from "node:fs";
import { basename } from "node:path";
import type { ConstantAnswers } from "./constant-answers.js";
import { goPluginMethods } from "./go-plugin-services.js";
import type { GrpcMethod, UnaryMethod } from "./grpc-connection.js";
import { listenAddressText, startGrpcServer } from "./grpc-server.js";
import { checkHandshake, handshakeLine } from "./handshake.js";
import { hclogLogger, logLevelFromEnvironment, type Logger } from "./hclog.js";
import { watchParent } from "./parent-watch.js";
import { loadProtocol, type Protocol, type ProtocolMethod } from "./protocol.js";
import type { ServedProvider } from "./provider-definition.js";
import { decodeRequest, dispatch, PROVIDER_RPCS } from "./provider-rpcs.js";
import type { ProviderHandlers } from "./handler-context.js";
import type { ProviderRpc } from "./protocol-messages.js";
import { selfSignedCertificate } from "./self-signed-certificate.js";

/** Where the plugin's process talks; the process's own by default (tests pass others). */
export interface ServeOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: { write(text: string): unknown };
  readonly stderr?: { write(text: string): unknown };
  /** Called with the exit code when the plugin is done (default `process.exit`). */
  readonly exit?: (code: number) => void;
  /** The organisation named in the plugin's TLS certificate (default "terraform-provider"). */
  readonly certificateOrganization?: string;
  /**
   * Answers encoded before (at build time: `constantAnswers` of the same definition), called on the
   * first call of one of those RPCs, which is then answered with them as they are: neither the
   * provider nor the protocol's codecs are loaded for it.
   */
  readonly constantAnswers?: () => Partial<ConstantAnswers>;
}

/**
 * Runs a provider as terraform's plugin: checks the go-plugin handshake (refusing to run when
 * terraform did not start it), listens on a Unix socket of its own (127.0.0.1 on Windows) with
 * mutual TLS that accepts terraform's certificate only, prints the handshake line, and serves
 * tfplugin6's `Provider` until terraform calls Shutdown or goes away. Logs go to stderr as hclog
 * JSON lines.
 *
 * Only what the handshake needs runs before its line, and after it only what terraform's TLS
 * handshake needs (node:tls): `load`, the protocol's codecs and the handlers are loaded on the
 * first call that needs them, so that neither terraform's start of the plugin nor its TLS
 * handshake waits for them. Pass
 * `() => import("./my-provider.js").then((m) => m.provider)`.
 */
export async function serveProvider<P>(load: () => ServedProvider<P> | Promise<ServedProvider<P>>, options: ServeOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? DESCRIPTOR_1;
  const stderr = options.stderr ?? process.stderr;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const handshake = checkHandshake(env, basename(process.argv[1] ?? "this program"));
  if (!handshake.ok) {
    stderr.write(`${handshake.message}\n`);
    exit(1);
    return;
  }
  const level = logLevelFromEnvironment(env);
  const log = hclogLogger((line) => stderr.write(line), level);
  // each answer's time at trace level (test/bench/provider-breakdown.ts reads them from terraform's log)
  const answered = level === "trace" ? (rpc: ProviderRpc, ms: number) => log.trace("rpc answered", { rpc, ms: Number(ms.toFixed(3)) }) : undefined;
  // mutual TLS when terraform gave its certificate: the plugin's own, made for this process, and terraform's
  const tls =
    handshake.clientCertificateDer === undefined ? undefined : { own: selfSignedCertificate({ organization: options.certificateOrganization }), terraform: handshake.clientCertificateDer };
  const protocol = loadProtocol();
  const methods = goPluginMethods(protocol, log, () => shutdown());
  addProviderMethods(methods, load, protocol, log, options, answered);

  if (tls === undefined) log.warn("PLUGIN_CLIENT_CERT is not set: serving without TLS, as go-plugin does");
  const server = await startGrpcServer(methods, {
    tls: tls === undefined ? undefined : { key: tls.own.privateKeyPem, certificate: tls.own.certificatePem, clientCertificateDer: tls.terraform },
    onError: (path, error) => log.error(`${path.slice(path.lastIndexOf("/") + 1)} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    // go-plugin's own variable for where a plugin makes its socket
    socketDirectory: env["PLUGIN_UNIX_SOCKET_DIR"] || undefined,
  });
  const shutdown = () => {
    log.debug("plugin shutting down");
    if (options.stdout === undefined) releaseStdout(log);
    void server.close().then(() => exit(0));
    setTimeout(() => {
      server.destroy();
      exit(0);
    }, 2_000).unref();
  };
  // before the line: from then on terraform may stop the plugin, and its socket's directory goes with it
  watchParent(log, () => exit(0));
  stdout.write(handshakeLine(server.address, tls?.own.der));
  server.start();
  log.debug("plugin listening", { network: server.address.network, address: listenAddressText(server.address), tls: tls !== undefined });
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
  // a stream that logs stands in for process.stdout (which is never made on descriptor 1 before)
  const { Writable } = process.getBuiltinModule("node:stream");
  const logged = new Writable({
    write(chunk: Buffer, _encoding, done) {
      log.debug("stdout", { text: chunk.toString("utf8") });
      done();
    },
  });
  Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, value: logged, writable: false });
  closeSync(1);
}

/**
 * The process's stdout as the handshake line is written to it: descriptor 1 directly, not
 * process.stdout, whose stream (node:net's or node:tty's) takes milliseconds to make before the line.
 */
const DESCRIPTOR_1 = {
  write(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length; ) written += writeSync(1, bytes, written);
  },
};

/**
 * Adds the methods of tfplugin6's `Provider` service to `methods`, by path (the service's other RPCs
 * are answered UNIMPLEMENTED): each answers its constant answer when there is one, else with the
 * provider's handlers, loaded (`load`) on the first call that needs them.
 */
function addProviderMethods<P>(
  methods: Map<string, GrpcMethod>,
  load: () => ServedProvider<P> | Promise<ServedProvider<P>>,
  protocol: Protocol,
  log: Logger,
  options: Pick<ServeOptions, "constantAnswers">,
  answered: ((rpc: ProviderRpc, ms: number) => void) | undefined,
): void {
  let handlers: Promise<ProviderHandlers<P>> | undefined;
  const startedHandlers = () => {
    if (handlers === undefined) {
      handlers = startProvider<P>(load, protocol, log);
      handlers.catch((error: unknown) => log.error("the provider definition failed to load", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) }));
    }
    return handlers;
  };
  let constants: Partial<ConstantAnswers> | undefined;
  const constantAnswers = () => (constants ??= options.constantAnswers?.() ?? {});
  const service = protocol.service("tfplugin6.Provider");
  for (const name of PROVIDER_RPCS) {
    const method = service[name];
    if (method === undefined) continue;
    methods.set(method.path, providerMethod(name, method, protocol, startedHandlers, constantAnswers, answered));
  }
}

/**
 * The gRPC method of one RPC: its constant answer when there is one (its request is then empty), else
 * its request decoded as the RPC's message, its handler (started on the first call), its answer encoded.
 */
function providerMethod<N extends ProviderRpc, P>(
  name: N,
  method: ProtocolMethod,
  protocol: Protocol,
  handlers: () => Promise<ProviderHandlers<P>>,
  constantAnswers: () => Partial<Record<ProviderRpc, Uint8Array>>,
  answered: ((rpc: ProviderRpc, ms: number) => void) | undefined,
): UnaryMethod {
  return {
    kind: "unary",
    async answer(bytes) {
      const constant = constantAnswers()[name];
      if (constant !== undefined) return Buffer.from(constant.buffer, constant.byteOffset, constant.byteLength);
      // the clock is read only when the answers' times are logged (trace level)
      const arrived = answered === undefined ? 0 : performance.now();
      const request = decodeRequest<N>(protocol, method, bytes);
      const started = handlers();
      const answer = protocol.encode(method.responseType, await dispatch(await started, name, request));
      answered?.(name, performance.now() - arrived);
      return answer;
    },
  };
}

/** The provider's definition and its handlers, loaded after the handshake (the module and the definition's imports). */
async function startProvider<P>(load: () => ServedProvider<P> | Promise<ServedProvider<P>>, protocol: ReturnType<typeof loadProtocol>, log: Logger) {
  const service = import("./provider-service.js");
  const definition: ServedProvider<P> = await load();
  const { providerHandlers } = await service;
  return providerHandlers<P>(definition, protocol, log);
}
