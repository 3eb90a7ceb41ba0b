import { spawn } from "node:child_process";
import { convergeCommand } from "../../support/converge-command.js";
import { ADMIN_TOKEN } from "./reconcile-harness.js";

/** How a CLI child process ended, and what it printed. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** From spawn to exit. */
  readonly elapsedMs: number;
  /** Whether the test killed it (rather than it exiting on its own first). */
  readonly killed: boolean;
}

/** A CLI child process that is running; `kill()` sends SIGKILL if it still runs. */
export interface CliProcess {
  readonly done: Promise<CliRun>;
  kill(): void;
}

/**
 * Starts converge (convergeCommand: `node dist/src/cli/main.js ARGS…`, or the release's executable) against `endpoint` with the admin
 * token in CONVERGE_TOKEN. `done` never rejects on a non-zero exit: callers assert on the result. A
 * run still going after `timeoutMs` is killed (and not counted as killed by the test).
 */
export function startCli(args: ReadonlyArray<string>, endpoint: string, timeoutMs = 60_000): CliProcess {
  const started = performance.now();
  const converge = convergeCommand();
  const child = spawn(converge.file, [...converge.args, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CONVERGE_ENDPOINT: endpoint, CONVERGE_TOKEN: ADMIN_TOKEN, NO_COLOR: "1" },
  });
  let stdout = "";
  let stderr = "";
  let killed = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const running = () => child.exitCode === null && child.signalCode === null;
  const guard = setTimeout(() => running() && child.kill("SIGKILL"), timeoutMs);
  const done = new Promise<CliRun>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started, killed });
    });
  });
  return {
    done,
    kill() {
      if (!running()) return;
      killed = true;
      child.kill("SIGKILL");
    },
  };
}

/** Runs the CLI to its end. */
export function runCli(args: ReadonlyArray<string>, endpoint: string, timeoutMs?: number): Promise<CliRun> {
  return startCli(args, endpoint, timeoutMs).done;
}

/** Resolves once `condition()` holds, checking every `intervalMs`; false if `done` settles first. */
export async function waitUntil(condition: () => boolean, done: Promise<unknown>, intervalMs = 1): Promise<boolean> {
  let finished = false;
  void done.then(() => (finished = true), () => (finished = true));
  while (!condition()) {
    if (finished) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return true;
}

/** The output of a run, for assertion messages. */
export function describeRun(run: CliRun): string {
  return `exit ${run.code} signal ${run.signal} after ${Math.round(run.elapsedMs)} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}
