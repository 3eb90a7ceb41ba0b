import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../../src/provider/runtime/handshake.js";
import { firstExecutable } from "../../support/executables.js";

/**
 * Debian's user-mode QEMU for arm64 (`qemu-user-static`) and the arm64 C library it loads the
 * executable with (`libc6-arm64-cross`, under /usr/aarch64-linux-gnu: Bun's arm64 build links
 * libstdc++ statically and needs only glibc's libc, libm, libpthread, libdl and loader): how the
 * linux_arm64 release is run on an amd64 machine. `.ci/run`
 * installs them when they are missing; locally a test without them is skipped with the reason
 * printed, and under CI (CI=true) it fails instead.
 */

/** The arm64 sysroot the cross packages install: qemu's `-L`. */
export const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
/** The Debian packages `.ci/run` installs for the arm64 test. */
export const QEMU_PACKAGES = ["qemu-user-static", "libc6-arm64-cross"] as const;
/** The files of the sysroot the arm64 executable (Bun's arm64 build) needs, by the package that installs each. */
const SYSROOT_FILES: ReadonlyArray<readonly [string, string]> = [
  ["lib/ld-linux-aarch64.so.1", "libc6-arm64-cross"],
  ["lib/libc.so.6", "libc6-arm64-cross"],
];

/** `qemu-aarch64-static` on PATH (or `undefined`). */
export function findQemuAarch64(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return firstExecutable((env.PATH ?? "").split(":").filter((entry) => entry !== "").map((directory) => join(directory, "qemu-aarch64-static")));
}

/** Why the arm64 executable cannot be run here, or `undefined` when it can. Throws under CI, where it must run. */
export function qemuMissingReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const missing = [
    ...(findQemuAarch64(env) ? [] : ["qemu-aarch64-static on PATH (qemu-user-static)"]),
    ...SYSROOT_FILES.filter(([file]) => !existsSync(join(ARM64_SYSROOT, file))).map(([file, pack]) => `${join(ARM64_SYSROOT, file)} (${pack})`),
  ];
  if (missing.length === 0) return undefined;
  const reason = `no ${missing.join(", no ")}: install them with \`apt-get install ${QEMU_PACKAGES.join(" ")}\` (.ci/run does)`;
  if (env.CI === "true") throw new Error(`${reason}; CI must run the linux_arm64 executable`);
  return reason;
}

/**
 * Writes `path`, a one-line shell script that runs the arm64 `executable` under `qemu`, passing its
 * arguments and environment on: what terraform (amd64) starts as the provider.
 */
export function writeQemuWrapper(path: string, qemu: string, executable: string): string {
  writeFileSync(path, `#!/bin/sh\nexec '${qemu}' -L '${ARM64_SYSROOT}' '${executable}' "$@"\n`, { mode: 0o755 });
  return path;
}

/** The ELF header's machine field (e_machine) of `file`: 62 for x86-64, 183 for AArch64. */
export function elfMachine(file: string): number {
  const header = readFileSync(file).subarray(0, 20);
  if (header.toString("latin1", 0, 4) !== "\x7fELF") throw new Error(`${file} is not an ELF executable: it starts ${JSON.stringify(header.toString("latin1", 0, 4))}`);
  return header.readUInt16LE(18);
}


/** What `firstLine` saw: the line, and the time from spawning to it. */
export interface HandshakeSeen {
  readonly line: string;
  readonly ms: number;
}

/**
 * Starts `command` as terraform starts a provider (the magic cookie, PLUGIN_PROTOCOL_VERSIONS=6 and
 * `clientCertificatePem` as PLUGIN_CLIENT_CERT in an environment of only those and PATH), waits for
 * its first line on stdout, then kills it. Rejects with what it printed when it exits first or
 * prints nothing within `timeoutMs`.
 */
export function firstLine(command: string, clientCertificatePem: string, timeoutMs: number): Promise<HandshakeSeen> {
  return new Promise((resolveLine, reject) => {
    const started = performance.now();
    const child = spawn(command, [], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "6", PLUGIN_CLIENT_CERT: clientCertificatePem },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let seen: HandshakeSeen | undefined;
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      if (end < 0 || seen) return;
      seen = { line: stdout.slice(0, end), ms: performance.now() - started };
      child.kill("SIGTERM");
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (seen) resolveLine(seen);
      else reject(new Error(`${command} printed no line within ${timeoutMs} ms (exit ${code ?? signal}): stdout ${JSON.stringify(stdout)}, stderr ${JSON.stringify(stderr.slice(0, 2000))}`));
    });
  });
}
