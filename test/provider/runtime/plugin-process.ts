import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join, resolve } from "node:path";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../../src/provider/runtime/handshake.js";
import { selfSignedCertificate, type SelfSignedCertificate } from "../../../src/provider/runtime/self-signed-certificate.js";

/** The toy provider's executable, run from the compiled runtime (`npm test` builds first). */
export const TOY_PROVIDER = resolve(import.meta.dirname, "fixtures/toy-provider.mjs");
/** go-plugin's magic cookie as terraform sets it in a plugin's environment: the runtime's own. */
export const MAGIC_COOKIE = { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE };
const PROTO = resolve(import.meta.dirname, "../../../src/provider/runtime/proto");

/** The plugin's services as a gRPC client sees them, loaded from the .proto text (not the runtime's descriptor). */
const definitions = grpc.loadPackageDefinition(
  protoLoader.loadSync(["tfplugin6.proto", "grpc_controller.proto", "grpc_stdio.proto", "grpc_broker.proto"].map((name) => join(PROTO, name)), {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  }),
) as unknown as {
  tfplugin6: { Provider: grpc.ServiceClientConstructor };
  plugin: { GRPCController: grpc.ServiceClientConstructor; GRPCStdio: grpc.ServiceClientConstructor; GRPCBroker: grpc.ServiceClientConstructor };
};

/** A running plugin process, as terraform starts one: environment of go-plugin, a client certificate, the handshake line read. */
export interface PluginProcess {
  readonly child: ChildProcess;
  readonly handshake: string;
  /** Where the plugin listens, as node:net's connect takes it (its Unix socket, or 127.0.0.1 and a port). */
  readonly where: { readonly path: string } | { readonly host: string; readonly port: number };
  /** The server's certificate from the handshake, as PEM. */
  readonly serverCertificatePem: string;
  readonly clientCertificate: SelfSignedCertificate;
  readonly exited: Promise<number | null>;
  stderr(): string;
  /** A client of one of the plugin's services over mutual TLS, with `certificate` (the one the plugin was given by default). */
  client(service: "Provider" | "GRPCController" | "GRPCStdio" | "GRPCBroker", certificate?: SelfSignedCertificate): grpc.Client;
  /** A unary call; rejects with the gRPC error. */
  call<T = Record<string, unknown>>(method: string, request: object, service?: "Provider" | "GRPCController"): Promise<T>;
  kill(): void;
}

/** Starts a provider's executable (the toy provider by default) with go-plugin's environment, and waits for its handshake line. */
export async function startPlugin(env: Readonly<Record<string, string>> = {}, executable = TOY_PROVIDER): Promise<PluginProcess> {
  const clientCertificate = selfSignedCertificate();
  const child = spawn(process.execPath, [executable], {
    env: { PATH: process.env["PATH"] ?? "", ...MAGIC_COOKIE, PLUGIN_PROTOCOL_VERSIONS: "5,6", PLUGIN_CLIENT_CERT: clientCertificate.certificatePem, TF_LOG: "trace", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const handshake = await new Promise<string>((resolveLine, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolveLine(stdout.slice(0, stdout.indexOf("\n")));
    });
    void exited.then((code) => reject(new Error(`the plugin exited with ${code} before its handshake; stderr: ${stderr}`)));
  });
  const fields = handshake.split("|");
  const where = fields[2] === "unix" ? { path: fields[3]! } : { host: "127.0.0.1", port: Number(fields[3]!.split(":")[1]) };
  const target = "path" in where ? `unix://${where.path}` : `127.0.0.1:${where.port}`;
  const der = Buffer.from(fields[5]!, "base64");
  const serverCertificatePem = `-----BEGIN CERTIFICATE-----\n${der.toString("base64").match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
  const clients = new Map<string, grpc.Client>();
  const client = (service: "Provider" | "GRPCController" | "GRPCStdio" | "GRPCBroker", certificate = clientCertificate) => {
    const key = `${service}:${certificate === clientCertificate ? "own" : "other"}`;
    let existing = clients.get(key);
    if (existing === undefined) {
      const Client = service === "Provider" ? definitions.tfplugin6.Provider : definitions.plugin[service];
      const credentials = grpc.credentials.createSsl(Buffer.from(serverCertificatePem), Buffer.from(certificate.privateKeyPem), Buffer.from(certificate.certificatePem));
      existing = new Client(target, credentials, { "grpc.ssl_target_name_override": "localhost", "grpc.default_authority": "localhost" });
      clients.set(key, existing);
    }
    return existing;
  };
  return {
    child,
    handshake,
    where,
    serverCertificatePem,
    clientCertificate,
    exited,
    stderr: () => stderr,
    client,
    call<T>(method: string, request: object, service: "Provider" | "GRPCController" = "Provider") {
      const target = client(service) as unknown as Record<string, (request: object, callback: (error: grpc.ServiceError | null, response: T) => void) => void>;
      return new Promise<T>((resolveCall, reject) => target[method]!.call(target, request, (error, response) => (error ? reject(error) : resolveCall(response))));
    },
    kill() {
      for (const each of clients.values()) each.close();
      child.kill("SIGTERM");
    },
  };
}
