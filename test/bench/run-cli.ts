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
}

const TIME = "/usr/bin/time";

/** Runs the compiled `converge` CLI in a child process, measuring wall time and peak memory. */
export async function runCli(args: ReadonlyArray<string>, env: Record<string, string>): Promise<CliRun> {
  const measured = existsSync(TIME);
  const command = measured ? TIME : process.execPath;
  const fullArgs = measured ? ["-f", "maxrss-kib=%M", process.execPath, builtCliPath(), ...args] : [builtCliPath(), ...args];
  const { code, stdout, stderr, wallMs } = await runProcess(command, fullArgs, { env: { ...(process.env as Record<string, string>), ...env } });
  const rss = /maxrss-kib=(\d+)/.exec(stderr);
  return { code, stdout, stderr: stderr.replace(/maxrss-kib=\d+\n?/, ""), wallMs, maxRssMiB: rss ? Number(rss[1]) / 1024 : undefined };
}
