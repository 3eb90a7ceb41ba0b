import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";

const ROOT = resolve(import.meta.dirname, "../../../..");
/** The release `converge provider package` writes by default (dist/release), or BENCH_RELEASE_DIR. */
const RELEASE_DIR = resolve(process.env.BENCH_RELEASE_DIR ?? join(ROOT, "dist", "release"));
const EXAMPLES = join(ROOT, "examples", "desired-state");

/** The commands measured, each run by both forms in every round. */
const COMMANDS: ReadonlyArray<{ readonly what: string; readonly args: ReadonlyArray<string> }> = [
  { what: "`converge --version`", args: ["--version"] },
  { what: "`converge validate -f examples/desired-state`", args: ["validate", "-f", EXAMPLES] },
];

/**
 * Issue 32, the CLI as one executable: the start-up of the release's single executable `converge`
 * (its Node.js 26 with V8's code cache of the CLI's bundle) against `node dist/src/cli/main.js`
 * (this Node.js on the compiled CLI), in the same rounds, each command by each form one after the
 * other: `--version` (start-up alone) and `validate` of the examples. The goal: no slower.
 * Needs a release (`converge provider package`, or BENCH_RELEASE_DIR).
 */
export const cliExecutable: BenchExperiment = {
  name: "cli-executable",
  description: "the CLI's single executable against node dist/src/cli/main.js: --version and validate of the examples",
  async run({ rounds }) {
    const executable = join(RELEASE_DIR, "executables", "linux_amd64", "converge");
    if (!existsSync(executable)) {
      const problem = `no CLI executable at ${executable}: run converge provider package first (or set BENCH_RELEASE_DIR to a release directory)`;
      return { markdown: `### the CLI as one executable against Node.js\n\n${problem}\n`, data: {}, problems: [problem] };
    }
    const forms = [
      { what: "single executable", command: executable, prefix: [] as string[] },
      { what: "node dist/src/cli/main.js", command: process.execPath, prefix: [builtCliPath()] },
    ];
    const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1" };
    const times = COMMANDS.map(() => forms.map(() => [] as number[]));
    const problems: string[] = [];
    const once = async (commandIndex: number, formIndex: number): Promise<ProcessResult> => {
      const form = forms[formIndex]!;
      const run = await runProcess(form.command, [...form.prefix, ...COMMANDS[commandIndex]!.args], { env, timeoutMs: 60_000 });
      if (run.code !== 0) problems.push(`${form.what} ${COMMANDS[commandIndex]!.args.join(" ")} exited ${run.code}: ${run.stderr.slice(0, 300)}`);
      return run;
    };
    // one warm-up of each, so that the file system cache holds both
    for (const [c] of COMMANDS.entries()) for (const [f] of forms.entries()) await once(c, f);
    for (let round = 0; round < rounds; round += 1) {
      for (const [c] of COMMANDS.entries()) {
        for (const [f] of forms.entries()) times[c]![f]!.push((await once(c, f)).wallMs);
      }
      process.stderr.write(`cli-executable: round ${round + 1}/${rounds}: ${COMMANDS.map((command, c) => `${command.args[0]} ${forms.map((form, f) => `${form.what} ${Math.round(times[c]![f]!.at(-1)!)} ms`).join(", ")}`).join("; ")}\n`);
    }
    const ratios = COMMANDS.map((_, c) => median(times[c]![0]!.map((ms, round) => ms / times[c]![1]![round]!)));
    const markdown = [
      "### the CLI as one executable against Node.js on the compiled CLI",
      "",
      "The release's `converge` (Node.js 26 single executable with V8's code cache) and `node dist/src/cli/main.js`, each command by each form one after the other in every round.",
      "",
      "| command | single executable, median | node dist/src/cli/main.js, median | ratio (median of per-round ratios) | goal: no slower |",
      "| --- | --- | --- | --- | --- |",
      ...COMMANDS.map((command, c) => `| ${command.what} | ${Math.round(median(times[c]![0]!))} ms | ${Math.round(median(times[c]![1]!))} ms | ${ratios[c]!.toFixed(2)}× | ${ratios[c]! <= 1 ? "met" : "NOT met"} |`),
      "",
    ].join("\n");
    return { markdown, data: { executable, commands: COMMANDS.map((command) => command.args), forms: forms.map((form) => form.what), times, ratios }, problems };
  },
};
