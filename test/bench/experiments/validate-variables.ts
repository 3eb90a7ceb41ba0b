import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeVariableEstate } from "../estate-variables.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli, type CliRun } from "../run-cli.js";
import { median } from "../stats.js";

/** The goal of issue 42: validating with variables costs at most this much more than without. */
const GOAL = 1.1;

/**
 * Issue 42: `converge validate` of the 4,640-document estate written with variables (references in
 * every document, their values in a `--var-file`) against the same estate written plainly, in the
 * same rounds, the two run one after the other in alternating order; wall time, and the process's
 * CPU time (which other work on a shared machine moves less). Before measuring, both are rendered
 * once and must give the same documents.
 */
export const validateVariables: BenchExperiment = {
  name: "validate-variables",
  description: "converge validate of 4,640 documents with variables against the same documents without",
  async run({ rounds }) {
    const directory = await mkdtemp(join(tmpdir(), "converge-variables-"));
    const problems: string[] = [];
    const plainRuns: CliRun[] = [];
    const variableRuns: CliRun[] = [];
    let shape = { documents: 0, references: 0, variables: 0 };
    try {
      shape = await writeVariableEstate(directory);
      const plain = ["validate", "-f", join(directory, "plain")];
      const withVariables = ["validate", "-f", join(directory, "documents"), "--var-file", join(directory, "values.yaml")];
      const rendered = await Promise.all([
        runCli(["render", "--output", "json", ...plain.slice(1)], {}),
        runCli(["render", "--output", "json", ...withVariables.slice(1)], {}),
      ]);
      if (rendered[0].stdout !== rendered[1].stdout || rendered[0].code !== 0) problems.push(`the two estates do not render the same documents: ${rendered[1].stderr.slice(0, 300)}`);
      // one warm-up of each, so that the file system cache holds both estates
      await runCli(plain, {});
      await runCli(withVariables, {});
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? [plain, withVariables] : [withVariables, plain];
        for (const args of order) {
          const run = await runCli(args, {});
          if (run.code !== 0 || !run.stdout.startsWith(`${shape.documents} documents`)) problems.push(`round ${round + 1}: ${args.join(" ")} exited ${run.code}: ${run.stdout.slice(0, 100)} ${run.stderr.slice(0, 300)}`);
          (args === plain ? plainRuns : variableRuns).push(run);
        }
        process.stderr.write(`validate-variables: round ${round + 1}/${rounds}: without ${Math.round(plainRuns.at(-1)!.wallMs)} ms (CPU ${plainRuns.at(-1)!.cpuMs ?? "?"} ms), `
          + `with ${Math.round(variableRuns.at(-1)!.wallMs)} ms (CPU ${variableRuns.at(-1)!.cpuMs ?? "?"} ms)\n`);
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
    const ratio = median(variableRuns.map((run, round) => run.wallMs / plainRuns[round]!.wallMs));
    const cpu = (runs: ReadonlyArray<CliRun>) => runs.map((run) => run.cpuMs ?? Number.NaN);
    const cpuRatio = median(cpu(variableRuns).map((ms, round) => ms / cpu(plainRuns)[round]!));
    const verdict = (value: number) => (Number.isNaN(value) ? "not measured" : value <= GOAL ? "met" : "NOT met");
    const markdown = [
      `### validate with variables: ${shape.documents.toLocaleString("en-US")} documents, ${shape.references.toLocaleString("en-US")} references, against the same documents without`,
      "",
      `The loading estate written twice: plainly, and with ${shape.references.toLocaleString("en-US")} references to ${shape.variables} variables of one \`--var-file\` (every account, API, timeout, scope list and domain); rendered once to check both give the same documents, then validated one after the other in each round (alternating which goes first), the CLI started as a process each time.`,
      "",
      "| measure | value | goal |",
      "| --- | --- | --- |",
      `| \`converge validate\` without variables, median | ${Math.round(median(plainRuns.map((run) => run.wallMs)))} ms wall, ${median(cpu(plainRuns))} ms CPU, peak ${Math.max(...plainRuns.map((run) => run.maxRssMiB ?? 0)).toFixed(0)} MiB | |`,
      `| \`converge validate --var-file\` with variables, median | ${Math.round(median(variableRuns.map((run) => run.wallMs)))} ms wall, ${median(cpu(variableRuns))} ms CPU, peak ${Math.max(...variableRuns.map((run) => run.maxRssMiB ?? 0)).toFixed(0)} MiB | |`,
      `| with ÷ without, wall time (median of per-round ratios) | **${ratio.toFixed(2)}×** | ≤ ${GOAL}×: ${verdict(ratio)} |`,
      `| with ÷ without, CPU time of the process (median of per-round ratios) | **${cpuRatio.toFixed(2)}×** | ≤ ${GOAL}×: ${verdict(cpuRatio)} |`,
      "",
      `Per round — without ms: ${plainRuns.map((run) => `${Math.round(run.wallMs)} (CPU ${run.cpuMs ?? "?"})`).join(" / ")}; `
        + `with ms: ${variableRuns.map((run) => `${Math.round(run.wallMs)} (CPU ${run.cpuMs ?? "?"})`).join(" / ")}.`,
      "",
    ].join("\n");
    return { markdown, data: { shape, plain: plainRuns, withVariables: variableRuns, ratio, cpuRatio }, problems };
  },
};
