import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:tls";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCertificate, type SelfSignedCertificate } from "../../../src/provider/runtime/self-signed-certificate.js";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../../src/provider/runtime/handshake.js";
import { PACKAGE_TIMEOUT_MS, testRelease } from "./release-fixture.js";

/**
 * The release's provider executable (Bun) speaks go-plugin's automatic mutual TLS as terraform
 * expects: started as terraform starts it, with terraform's client certificate, it answers the one
 * client that presents that certificate with HTTP/2's SETTINGS, and disconnects a client that
 * presents another certificate, or none, before any HTTP/2 byte.
 */

let child: ChildProcess;
let where: { readonly path: string } | { readonly host: string; readonly port: number };
let serverCertificatePem: string;
const terraformCertificate = selfSignedCertificate();

/** HTTP/2's client connection preface, then an empty SETTINGS frame: what grpc-go sends first. */
const CLIENT_PREFACE = Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

/** How a connection with `certificate` ends: "settings" once the server's first frame is a SETTINGS frame, else the TLS error or "closed". */
function connectWith(certificate: SelfSignedCertificate | undefined): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({
      ...where,
      servername: "localhost",
      ca: serverCertificatePem,
      ...(certificate === undefined ? {} : { key: certificate.privateKeyPem, cert: certificate.certificatePem }),
      ALPNProtocols: ["h2"],
    });
    let received = Buffer.alloc(0);
    const done = (how: string) => {
      socket.destroy();
      resolve(how);
    };
    socket.once("secureConnect", () => socket.write(CLIENT_PREFACE));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // a frame header: 24-bit length, type (4 is SETTINGS), flags, stream 0
      if (received.length >= 9) done(received[3] === 4 && received.readUInt32BE(5) === 0 ? "settings" : `frame of type ${received[3]}`);
    });
    socket.once("error", (error) => done(error.message));
    socket.once("close", () => done("closed"));
  });
}

beforeAll(async () => {
  const release = await testRelease();
  child = spawn(release.executable, [], {
    env: { PATH: process.env.PATH ?? "", [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "6", PLUGIN_CLIENT_CERT: terraformCertificate.certificatePem },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`the provider exited ${code} before its handshake line`)));
  });
  const [, , network, address, , certificate] = line.split("|");
  where = network === "unix" ? { path: address! } : { host: address!.slice(0, address!.lastIndexOf(":")), port: Number(address!.slice(address!.lastIndexOf(":") + 1)) };
  serverCertificatePem = new X509Certificate(Buffer.from(certificate!, "base64")).toString();
}, PACKAGE_TIMEOUT_MS);

afterAll(() => {
  child?.kill("SIGTERM");
});

describe("the release's provider executable and terraform's client certificate", () => {
  it("answers the client that presents terraform's certificate with HTTP/2's SETTINGS", async () => {
    await expect(connectWith(terraformCertificate)).resolves.toBe("settings");
  });

  it("refuses a client that presents another certificate, made as terraform makes its own", async () => {
    await expect(connectWith(selfSignedCertificate())).resolves.toMatch(/^closed$|alert|certificate|socket hang up|ECONNRESET/i);
  });

  it("refuses a client that presents no certificate", async () => {
    await expect(connectWith(undefined)).resolves.toMatch(/^closed$|alert|certificate|socket hang up|ECONNRESET/i);
  });

  it("still answers terraform's client after refusing the others", async () => {
    await expect(connectWith(terraformCertificate)).resolves.toBe("settings");
  });
});
