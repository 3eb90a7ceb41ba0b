import { convergeCommand } from "./converge-command.js";
import { runProcess } from "./run-process.js";

/** How a `converge` subprocess ended and what it printed. */
export interface CliResult {
  /** Exit code (`null` only when the process was killed by a signal). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /**
   * Environment of the process, on top of a clean copy of this one: `CONVERGE_*` variables of the
   * test process are never inherited, and `NO_COLOR` is set so that output is plain text.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory (file names in messages are relative to it). @default process.cwd() */
  readonly cwd?: string;
  /** Kills the process after this long and fails. @default 45000 */
  readonly timeoutMs?: number;
  /** Written to the process's standard input (`-f -`), which is then closed. @default stdin closed */
  readonly stdin?: string;
  /** Resolves even when the process printed a process warning (NODE_WARNING_LINE), for a test that checks for one itself. @default false */
  readonly allowProcessWarnings?: boolean;
}

/**
 * A process warning of Node.js on stderr, `(node:PID) Warning: …` or `(node:PID) [DEP0040]
 * DeprecationWarning: …`: a library speaking over converge, which no command may print.
 */
export const NODE_WARNING_LINE = /^\(node:\d+\) .*$/m;

/**
 * Runs converge (convergeCommand: `node dist/src/cli/main.js ARGS`, or the release's executable
 * with CONVERGE_TEST_CLI=packaged) as a subprocess with stdin closed (so it
 * is not a terminal) and resolves with its exit code, stdout and stderr. Never rejects on a non-zero
 * exit; rejects when the process cannot start or outlives `timeoutMs`, and when it printed a process
 * warning of Node.js (NODE_WARNING_LINE: a library's voice over converge's) unless `allowProcessWarnings`.
 */
export async function runCli(args: ReadonlyArray<string>, options: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("CONVERGE_")) env[key] = value;
  }
  env.NO_COLOR = "1";
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const converge = convergeCommand();
  const { code, stdout, stderr } = await runProcess(converge.file, [...converge.args, ...args], { cwd: options.cwd, env, timeoutMs: options.timeoutMs ?? 45_000, stdin: options.stdin });
  const warning = NODE_WARNING_LINE.exec(stderr);
  if (warning && !options.allowProcessWarnings) {
    throw new Error(`converge ${args.join(" ")} printed a process warning of Node.js, a library speaking over converge: ${warning[0]}\n--- stderr ---\n${stderr}`);
  }
  return { code, stdout, stderr };
}

/** Renders a result for assertion messages. */
export function describeCliResult(result: CliResult): string {
  return `exit ${result.code}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`;
}
