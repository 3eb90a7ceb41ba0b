import { existsSync } from "node:fs";
import { runProcess } from "../support/run-process.js";
import { builtCliPath } from "../support/serve-process.js";

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** Peak resident memory of the CLI process in MiB (from /usr/bin/time), when available. */
  readonly maxRssMiB: number | undefined;
  /** CPU time of the CLI process, user and system, in ms (from /usr/bin/time, 10 ms steps), when available: less moved than wall time by other work on the machine. */
  readonly cpuMs: number | undefined;
}

const TIME = "/usr/bin/time";

/** Runs the compiled `converge` CLI in a child process, measuring wall time and peak memory. */
export async function runCli(args: ReadonlyArray<string>, env: Record<string, string>): Promise<CliRun> {
  const measured = existsSync(TIME);
  const command = measured ? TIME : process.execPath;
  const fullArgs = measured ? ["-f", "maxrss-kib=%M cpu-s=%U+%S", process.execPath, builtCliPath(), ...args] : [builtCliPath(), ...args];
  const { code, stdout, stderr, wallMs } = await runProcess(command, fullArgs, { env: { ...(process.env as Record<string, string>), ...env } });
  const measures = /maxrss-kib=(\d+) cpu-s=([\d.]+)\+([\d.]+)\n?/.exec(stderr);
  return {
    code, stdout, stderr: measures ? stderr.replace(measures[0], "") : stderr, wallMs,
    maxRssMiB: measures ? Number(measures[1]) / 1024 : undefined,
    cpuMs: measures ? Math.round((Number(measures[2]) + Number(measures[3])) * 1000) : undefined,
  };
}
