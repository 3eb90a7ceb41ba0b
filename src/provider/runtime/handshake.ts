import { X509Certificate } from "node:crypto";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PROTOCOL_VERSION } from "../../contract/plugin-handshake.js";
import { listenAddressText, type ListenAddress } from "./grpc-server.js";

/**
 * go-plugin's handshake, as terraform runs a provider: it sets the magic cookie (so a plugin started
 * by hand refuses to run), the protocol versions it speaks and, for automatic mutual TLS, its client
 * certificate; the plugin answers with one line on stdout saying where it listens. The constants are
 * the contract's (the release starts the provider with them too).
 */
export { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, PROTOCOL_VERSION };

export type HandshakeCheck =
  | {
      readonly ok: true;
      /** terraform's client certificate (DER, read from the PEM it passes), when it asks for mutual TLS. */
      readonly clientCertificateDer: Buffer | undefined;
    }
  | { readonly ok: false; readonly message: string };

export function checkHandshake(env: Readonly<Record<string, string | undefined>>, program: string): HandshakeCheck {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE) {
    const received = env[MAGIC_COOKIE_KEY] === undefined ? "is not set" : "has another value";
    return {
      ok: false,
      message: `${program} is a terraform provider plugin: terraform starts it (terraform init, plan, apply), it is not run by hand (${MAGIC_COOKIE_KEY} ${received}; expected terraform's value)`,
    };
  }
  const versions = (env["PLUGIN_PROTOCOL_VERSIONS"] ?? "").split(",").map((version) => version.trim());
  if (!versions.includes(String(PROTOCOL_VERSION))) {
    return {
      ok: false,
      message: `${program} speaks plugin protocol ${PROTOCOL_VERSION}, which this terraform does not offer (PLUGIN_PROTOCOL_VERSIONS is ${JSON.stringify(env["PLUGIN_PROTOCOL_VERSIONS"] ?? "")}): expected terraform 1.0 or later`,
    };
  }
  const pem = env["PLUGIN_CLIENT_CERT"];
  if (pem === undefined || pem === "") return { ok: true, clientCertificateDer: undefined };
  try {
    return { ok: true, clientCertificateDer: new X509Certificate(pem).raw };
  } catch (error) {
    return {
      ok: false,
      message: `${program} was given a PLUGIN_CLIENT_CERT that is not a certificate (${pem.length} characters; ${(error as Error).message}): expected the PEM certificate terraform passes for mutual TLS`,
    };
  }
}

/**
 * The line that tells terraform where to connect: core protocol 1, plugin protocol 6, the network
 * and address (`unix` and the socket's path, or `tcp` and 127.0.0.1:PORT), gRPC, and the server's
 * certificate as base64 DER without padding (empty without TLS).
 */
export function handshakeLine(address: ListenAddress, serverCertificateDer: Buffer | undefined): string {
  const certificate = serverCertificateDer === undefined ? "" : serverCertificateDer.toString("base64").replace(/=+$/, "");
  return `1|${PROTOCOL_VERSION}|${address.network}|${listenAddressText(address)}|grpc|${certificate}\n`;
}
