import { spawn } from "node:child_process";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../src/provider/runtime/handshake.js";
import { selfSignedCertificate } from "../../src/provider/runtime/self-signed-certificate.js";


let clientCertificate: string | undefined;

/**
 * The time from spawning `command` (as terraform starts a provider: the magic cookie, the protocol
 * versions and a client certificate in its environment) to its first line on stdout, go-plugin's
 * handshake line; the process is then killed.
 */
export function handshakeMs([command, ...args]: ReadonlyArray<string>): Promise<number> {
  clientCertificate ??= selfSignedCertificate().certificatePem;
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(command!, args, {
      env: { PATH: process.env["PATH"] ?? "", [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "5,6", PLUGIN_CLIENT_CERT: clientCertificate },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let elapsed: number | undefined;
    child.stdout.once("data", () => {
      elapsed = performance.now() - started;
      child.kill("SIGTERM");
    });
    child.once("error", reject);
    // after stdout has closed too, so that a line printed just before exiting still counts
    child.once("close", (code) => {
      if (elapsed === undefined) reject(new Error(`${command} exited ${code} before its handshake line`));
      else resolveRun(elapsed);
    });
  });
}
