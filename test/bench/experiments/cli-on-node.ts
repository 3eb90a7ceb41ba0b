import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DEMO_WORLD, startService } from "../../../src/service/index.js";
import { inAlternatingOrder } from "../alternating.js";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";

const ROOT = resolve(import.meta.dirname, "../../../..");
const EXAMPLES = join(ROOT, "examples", "desired-state");
const TOKEN = "demo-admin-token";

interface Timed {
  readonly cpuS: number;
  readonly wallS: number;
  readonly result: ProcessResult;
}

/** `node ARGS` under GNU time: its user + system CPU seconds and its wall seconds, with what it printed (GNU time's line taken off stderr). */
async function timed(args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, cwd: string): Promise<Timed> {
  const result = await runProcess("/usr/bin/time", ["-f", "gnu-time %U %S %e", process.execPath, ...args], { cwd, env, timeoutMs: 120_000 });
  const line = /gnu-time (\S+) (\S+) (\S+)\n?$/.exec(result.stderr);
  if (line === null) throw new Error(`GNU time printed no times for node ${args.join(" ")}: ${result.stderr}`);
  return { cpuS: Number(line[1]) + Number(line[2]), wallS: Number(line[3]), result: { ...result, stderr: result.stderr.slice(0, line.index) } };
}

/**
 * Issue 51, the CLI on Node.js as the build bundles its program (src/cli/release/node-bundle.ts)
 * against the same program unbundled (its compiled modules, `dist/src/cli/program.js`, imported by a
 * one-line entry), paired in the same rounds, alternating which goes first: `--help`, `validate` of
 * the repository's examples, and `plan` of them against an embedded service. CPU (user + system)
 * and wall time of the whole process by GNU time; the two forms' exit codes and stdout compared.
 */
export const cliOnNode: BenchExperiment = {
  name: "cli-on-node",
  description: "converge on Node.js: the program bundled by the build against its compiled modules unbundled (--help, validate, plan)",
  async run({ rounds }) {
    const directory = await mkdtemp(join(tmpdir(), "converge-cli-on-node-"));
    const service = await startService({ port: 0, world: { ...DEMO_WORLD, regionTransitionMs: 0 } });
    const problems: string[] = [];
    try {
      const unbundledEntry = join(directory, "unbundled.mjs");
      await writeFile(unbundledEntry, `import(${JSON.stringify(pathToFileURL(join(ROOT, "dist", "src", "cli", "program.js")).href)}).then(({ runProgram }) => runProgram(process.argv));\n`);
      const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", HOME: directory, CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: TOKEN };
      const commands = [["--help"], ["validate", "-f", EXAMPLES], ["plan", "-f", EXAMPLES]];
      const runs = commands.map(() => ({ bundled: [] as Timed[], unbundled: [] as Timed[] }));
      const pairs = Math.max(20, rounds * 4);
      for (let round = -1; round < pairs; round += 1) {
        for (const [c, args] of commands.entries()) {
          const [bundled, unbundled] = await inAlternatingOrder(round + 1, () => timed([builtCliPath(), ...args], env, directory), () => timed([unbundledEntry, ...args], env, directory));
          if (bundled.result.code !== unbundled.result.code || bundled.result.stdout !== unbundled.result.stdout) problems.push(`converge ${args.join(" ")}: the two forms answered differently (exit ${bundled.result.code} against ${unbundled.result.code})`);
          // the first pair warms the file system cache and is not counted
          if (round >= 0) {
            runs[c]!.bundled.push(bundled);
            runs[c]!.unbundled.push(unbundled);
          }
        }
      }
      const rows = commands.map((args, c) => {
        const { bundled, unbundled } = runs[c]!;
        const ms = (list: Timed[], figure: "cpuS" | "wallS") => Math.round(median(list.map((run) => run[figure])) * 1000);
        const ratio = median(bundled.map((run, index) => run.cpuS / Math.max(0.001, unbundled[index]!.cpuS)));
        return { command: args.join(" ").replace(EXAMPLES, "examples/desired-state"), ratio, row: `| \`converge ${args.join(" ").replace(EXAMPLES, "examples/desired-state")}\` | ${ms(bundled, "cpuS")} ms CPU, ${ms(bundled, "wallS")} ms wall | ${ms(unbundled, "cpuS")} ms CPU, ${ms(unbundled, "wallS")} ms wall | ${ratio.toFixed(2)}× |` };
      });
      const markdown = [
        "### converge on Node.js: the program bundled",
        "",
        `\`node dist/src/cli/main.js\` (the program as the build bundles it) against the same program's compiled modules imported by a one-line entry, ${pairs} pairs after one uncounted, alternating which goes first; CPU (user + system) and wall time of the process by GNU time, medians; the ratio is the median of per-pair CPU ratios.`,
        "",
        "| command | bundled | unbundled | CPU ratio |",
        "| --- | --- | --- | --- |",
        ...rows.map((row) => row.row),
        "",
      ].join("\n");
      return { markdown, data: { pairs, ratios: Object.fromEntries(rows.map((row) => [row.command, row.ratio])), cpuS: runs.map((run) => ({ bundled: run.bundled.map((one) => one.cpuS), unbundled: run.unbundled.map((one) => one.cpuS) })) }, problems };
    } finally {
      await service.close();
      await rm(directory, { recursive: true, force: true });
    }
  },
};
