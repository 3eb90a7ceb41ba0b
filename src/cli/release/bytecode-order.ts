import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * One run of an executable that records which of its functions and modules ran (Bun's
 * `BUN_BYTECODE_ORDER_OUT`): its arguments and environment, and, for a process that serves until
 * told to stop (the provider), whether to end it with SIGTERM once it printed its first line.
 */
export interface TrainingRun {
  readonly args: ReadonlyArray<string>;
  readonly env?: Readonly<Record<string, string>>;
  /**
   * End the process with SIGTERM this long after its first stdout line (go-plugin's handshake line):
   * long enough that the timers it set at start have run, whatever the machine's load, so that what
   * ran does not depend on when the signal came.
   */
  readonly stopAfterFirstLineMs?: number;
  readonly cwd?: string;
}

/** A run may take this long before the build gives up on it. */
const TRAINING_TIMEOUT_MS = 30_000;

/**
 * Bun's bytecode order of `executable` (a Bun single executable built without one) for `runs`: each
 * run writes what ran, in the order it first ran; the order file keeps every entry any run wrote,
 * sorted, under Bun's header line. Sorted, so that it depends only on which code ran, never on the
 * order in which a run's events came (the same runs give the same file, byte for byte: the release
 * stays reproducible); the layout still puts the code that runs at start together. Written to
 * `output`; throws naming the run that failed to start or to end.
 */
export async function trainBytecodeOrder(executable: string, runs: ReadonlyArray<TrainingRun>, output: string): Promise<void> {
  const scratch = mkdtempSync(join(dirname(output), ".bytecode-order-"));
  try {
    const entries = new Set<string>();
    let header: string | undefined;
    for (const [index, run] of runs.entries()) {
      const file = join(scratch, `run-${index}.txt`);
      await trainingRun(executable, run, file);
      const [first, ...lines] = readFileSync(file, "utf8").split("\n");
      header ??= first;
      if (first !== header) throw new Error(`${executable} ${run.args.join(" ")} wrote a bytecode order of format ${JSON.stringify(first)}, another run ${JSON.stringify(header)}`);
      for (const line of lines) if (line !== "") entries.add(line);
    }
    if (header === undefined || entries.size === 0) throw new Error(`${executable} recorded no bytecode order: is it a Bun executable built with --bytecode?`);
    writeFileSync(output, `${[header, ...[...entries].sort()].join("\n")}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function trainingRun(executable: string, run: TrainingRun, orderFile: string): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(executable, [...run.args], {
      cwd: run.cwd,
      env: { PATH: process.env.PATH ?? "", ...run.env, BUN_BYTECODE_ORDER_OUT: orderFile },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let stopping: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${executable} ${run.args.join(" ")} did not end within ${TRAINING_TIMEOUT_MS / 1000} s while its bytecode order was recorded: ${stderr.slice(0, 2000)}`));
    }, TRAINING_TIMEOUT_MS);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (run.stopAfterFirstLineMs === undefined || !stdout.includes("\n") || stopping) return;
      stopping = setTimeout(() => child.kill("SIGTERM"), run.stopAfterFirstLineMs);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`${executable} could not be started to record its bytecode order: ${error.message}`));
    });
    child.once("close", () => {
      clearTimeout(timer);
      clearTimeout(stopping);
      resolveRun();
    });
  });
}
