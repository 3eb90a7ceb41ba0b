import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeScaledEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { runCli, type CliRun } from "../run-cli.js";
import { median } from "../stats.js";

const SCALES = [1, 10] as const;

/**
 * Issue "desired model": `converge validate` of the 4,640- and 46,400-document estates against the
 * CLI's own start-up (`converge --help`), in the same rounds (each round runs the three commands
 * one after the other): wall time, the ratio to start-up per round, peak memory, and how time grows
 * with the estate (loading time beyond start-up, 46,400 against 4,640 documents).
 */
export const validateEstate: BenchExperiment = {
  name: "validate-estate",
  description: "converge validate of 4,640 and 46,400 documents against the CLI's start-up",
  async run({ rounds }) {
    const directories = await Promise.all(SCALES.map(() => mkdtemp(join(tmpdir(), "converge-validate-"))));
    const problems: string[] = [];
    const counts: number[] = [];
    const startup: CliRun[] = [];
    const validate: CliRun[][] = SCALES.map(() => []);
    try {
      for (const [i, scale] of SCALES.entries()) counts.push(await writeScaledEstate(directories[i]!, scale));
      // one warm-up of each, so that the file system cache holds the estates
      await runCli(["--help"], {});
      for (const directory of directories) await runCli(["validate", "-f", directory], {});
      for (let round = 0; round < rounds; round += 1) {
        startup.push(await runCli(["--help"], {}));
        for (const [i] of SCALES.entries()) {
          const run = await runCli(["validate", "-f", directories[i]!], {});
          if (run.code !== 0) problems.push(`round ${round + 1}: validate of ${counts[i]} documents exited ${run.code}: ${run.stderr.slice(0, 300)}`);
          validate[i]!.push(run);
        }
        process.stderr.write(`validate-estate: round ${round + 1}/${rounds}: start-up ${Math.round(startup.at(-1)!.wallMs)} ms; ${SCALES.map((_, i) => `${counts[i]} documents ${Math.round(validate[i]!.at(-1)!.wallMs)} ms, ${validate[i]!.at(-1)!.maxRssMiB?.toFixed(0) ?? "?"} MiB`).join("; ")}\n`);
      }
    } finally {
      await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
    }
    const startupMs = median(startup.map((run) => run.wallMs));
    const ratios = SCALES.map((_, i) => median(validate[i]!.map((run, round) => run.wallMs / startup[round]!.wallMs)));
    const wall = SCALES.map((_, i) => median(validate[i]!.map((run) => run.wallMs)));
    const peak = SCALES.map((_, i) => Math.max(...validate[i]!.map((run) => run.maxRssMiB ?? 0)));
    const growth = median(validate[1]!.map((run, round) => (run.wallMs - startup[round]!.wallMs) / (validate[0]![round]!.wallMs - startup[round]!.wallMs)));
    const markdown = [
      `### validate: ${counts.map((count) => count.toLocaleString("en-US")).join(" and ")} documents against the CLI's start-up`,
      "",
      "Contacts over 200 (2,000) accounts and 40 (400) APIs × (50 integrations + 50 routes) with their `Api` documents, in YAML; the CLI started as a process each time, the three commands run one after the other in each round.",
      "",
      "| measure | value | goal |",
      "| --- | --- | --- |",
      `| \`converge --help\` (start-up), median | ${Math.round(startupMs)} ms | |`,
      ...SCALES.map((_, i) => `| \`converge validate\` of ${counts[i]!.toLocaleString("en-US")} documents, median | ${Math.round(wall[i]!)} ms, ${ratios[i]!.toFixed(2)}× start-up (median of per-round ratios), peak ${peak[i]!.toFixed(0)} MiB | ${i === 0 ? `≤ 4× start-up: ${ratios[i]! <= 4 ? "met" : "NOT met"}` : `< 400 MiB: ${peak[i]! < 400 ? "met" : "NOT met"}`} |`),
      `| loading time beyond start-up, ${counts[1]!.toLocaleString("en-US")} against ${counts[0]!.toLocaleString("en-US")} documents (median per round) | ${growth.toFixed(1)}× for 10× the documents | linear: ${growth <= 11 ? "met" : "NOT met"} |`,
      "",
      `Per round — start-up ms: ${startup.map((run) => Math.round(run.wallMs)).join(" / ")}; ${SCALES.map((_, i) => `${counts[i]} documents ms: ${validate[i]!.map((run) => Math.round(run.wallMs)).join(" / ")}`).join("; ")}.`,
      "",
    ].join("\n");
    return { markdown, data: { counts, startup, validate, ratios, growth, peak }, problems };
  },
};
