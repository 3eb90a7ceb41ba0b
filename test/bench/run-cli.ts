import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { builtCliPath } from "../support/serve-process.js";

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** Peak resident memory of the CLI process in MiB (from /usr/bin/time), when available. */
  readonly maxRssMiB: number | undefined;
}

const TIME = "/usr/bin/time";

/** Runs the compiled `converge` CLI in a child process, measuring wall time and peak memory. */
export function runCli(args: ReadonlyArray<string>, env: Record<string, string>): Promise<CliRun> {
  const measured = existsSync(TIME);
  const command = measured ? TIME : process.execPath;
  const fullArgs = measured ? ["-f", "maxrss-kib=%M", process.execPath, builtCliPath(), ...args] : [builtCliPath(), ...args];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, fullArgs, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      const rss = /maxrss-kib=(\d+)/.exec(stderr);
      resolve({ code, stdout, stderr: stderr.replace(/maxrss-kib=\d+\n?/, ""), wallMs, maxRssMiB: rss ? Number(rss[1]) / 1024 : undefined });
    });
  });
}
