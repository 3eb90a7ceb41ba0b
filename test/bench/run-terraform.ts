import { runProcess } from "../support/run-process.js";

/** terraform from PATH, or $TERRAFORM. */
const TERRAFORM = process.env.TERRAFORM ?? "terraform";

/** How a terraform command ended, what it printed (stdout then stderr), and how long it took. */
export interface TimedTerraform {
  readonly code: number | null;
  readonly output: string;
  readonly wallMs: number;
}

/** Runs terraform in `cwd` with exactly `env`, timed as a whole process (15 minutes at most). */
export async function runTerraform(args: ReadonlyArray<string>, cwd: string, env: Record<string, string>): Promise<TimedTerraform> {
  const { code, stdout, stderr, wallMs } = await runProcess(TERRAFORM, args, { cwd, env, timeoutMs: 900_000 });
  return { code, output: stdout + stderr, wallMs };
}
