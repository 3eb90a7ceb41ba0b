import { spawn } from "node:child_process";

/** How a subprocess ended and what it printed. */
export interface ProcessResult {
  /** Exit code (`null` only when the process was killed by a signal). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

export interface ProcessOptions {
  readonly cwd?: string | undefined;
  /** The whole environment of the process (nothing is inherited that is not in it). */
  readonly env: Readonly<Record<string, string>>;
  /** Kills the process after this long and rejects. @default no limit */
  readonly timeoutMs?: number | undefined;
  /** Written to the process's standard input, which is then closed. @default stdin closed at once */
  readonly stdin?: string | undefined;
}

/**
 * Runs `command ARGS` with stdin closed (or fed `options.stdin`) and resolves with its exit code, stdout, stderr and wall
 * time. Never rejects on a non-zero exit; rejects when the process cannot start or outlives
 * `timeoutMs` (the message holds what it printed).
 */
export function runProcess(command: string, args: ReadonlyArray<string>, options: ProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = options.stdin === undefined
      ? spawn(command, [...args], { cwd: options.cwd, env: { ...options.env }, stdio: ["ignore", "pipe", "pipe"] })
      : spawn(command, [...args], { cwd: options.cwd, env: { ...options.env }, stdio: ["pipe", "pipe", "pipe"] });
    // a process that exits without reading all of it closes the pipe: that is its answer, not an error of the run
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.stdin);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} did not exit within ${options.timeoutMs} ms; stdout: ${JSON.stringify(stdout)}; stderr: ${JSON.stringify(stderr)}`));
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}
