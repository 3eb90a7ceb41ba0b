import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startService } from "../../../src/service/index.js";
import { ESTATE_TOKEN, estateWorld, writeScaledEstate } from "../estate.js";
import type { BenchExperiment } from "../experiment.js";
import { median } from "../stats.js";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { builtCliPath } from "../../support/serve-process.js";

const ROOT = resolve(import.meta.dirname, "../../../..");
/** The release `converge provider package` writes by default (dist/release), or BENCH_RELEASE_DIR. */
const RELEASE_DIR = resolve(process.env.BENCH_RELEASE_DIR ?? join(ROOT, "dist", "release"));
/** An earlier release to pair with (BENCH_BASE_RELEASE_DIR: the Node.js 26 SEA release of 872954d, say); optional. */
const BASE_RELEASE_DIR = process.env.BENCH_BASE_RELEASE_DIR ? resolve(process.env.BENCH_BASE_RELEASE_DIR) : undefined;

interface Form {
  readonly what: string;
  readonly command: string;
  readonly prefix: ReadonlyArray<string>;
}

interface Measured {
  readonly wallMs: number;
  readonly maxRssMiB: number;
  readonly result: ProcessResult;
}

/**
 * `form ARGS` run as it is, timed from spawn to exit, with what it printed; then once more under GNU
 * time for its peak RSS. The wall time is never taken through GNU time: its own fork and exec add a
 * few milliseconds to both sides of a pair, which is most of a command that takes 5 ms.
 */
async function measure(form: Form, args: ReadonlyArray<string>, env: Readonly<Record<string, string>>, cwd: string): Promise<Measured> {
  const run = await runProcess(form.command, [...form.prefix, ...args], { cwd, env, timeoutMs: 300_000 });
  const timed = await runProcess("/usr/bin/time", ["-f", "max-rss-kib=%M", form.command, ...form.prefix, ...args], { cwd, env, timeoutMs: 300_000 });
  const rss = /max-rss-kib=(\d+)\n?$/.exec(timed.stderr);
  return { wallMs: run.wallMs, maxRssMiB: Number(rss?.[1] ?? Number.NaN) / 1024, result: run };
}

/** The stdout of a drift report with its time taken out, for comparing two forms' reports. */
const steadyReport = (stdout: string) => stdout.replace(/"generatedAt":\s*"[^"]*"/g, '"generatedAt":""');

/**
 * Issue 41, the CLI's executable on Bun, paired in the same rounds (each pair one after the other):
 * `converge --version` against `node -e 0` of the machine's Node.js (goal ≤ 0.3×); `validate` of
 * the 4,640-document estate against `node dist/src/cli/main.js validate` (≤ 0.5×); `drift` of it
 * against an embedded service against the earlier release's executable (BENCH_BASE_RELEASE_DIR; ≤
 * 0.8×), with each one's peak RSS and the reports compared. Needs a release (`converge provider
 * package`, or BENCH_RELEASE_DIR).
 */
export const cliExecutable: BenchExperiment = {
  name: "cli-executable",
  description: "the CLI's executable: --version against node -e 0, validate of 4,640 documents against node dist, drift against the earlier release's executable",
  async run({ rounds }) {
    const executable = join(RELEASE_DIR, "executables", "linux_amd64", "converge");
    const base = BASE_RELEASE_DIR === undefined ? undefined : join(BASE_RELEASE_DIR, "executables", "linux_amd64", "converge");
    if (!existsSync(executable)) {
      const problem = `no CLI executable at ${executable}: run converge provider package first (or set BENCH_RELEASE_DIR to a release directory)`;
      return { markdown: `### the CLI's executable\n\n${problem}\n`, data: {}, problems: [problem] };
    }
    const problems: string[] = [];
    const released: Form = { what: "the release's converge", command: executable, prefix: [] };
    const node: Form = { what: "node dist/src/cli/main.js", command: process.execPath, prefix: [builtCliPath()] };
    const nodeFloor: Form = { what: "node -e 0", command: process.execPath, prefix: ["-e", "0"] };
    const earlier: Form | undefined = base !== undefined && existsSync(base) ? { what: "the earlier release's converge", command: base, prefix: [] } : undefined;
    if (base !== undefined && earlier === undefined) problems.push(`no executable at ${base} (BENCH_BASE_RELEASE_DIR): drift is not paired`);

    const directory = await mkdtemp(join(tmpdir(), "converge-cli-executable-"));
    const service = await startService({ port: 0, world: estateWorld({ latencyMs: 0 }) });
    try {
      const documents = await writeScaledEstate(directory, 1);
      const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1", HOME: directory };
      const driftEnv = { ...env, CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ESTATE_TOKEN };
      const pairs = [
        { what: "`converge --version` against `node -e 0`", forms: [released, nodeFloor], args: [["--version"], []], env, goal: 0.3 },
        { what: `\`validate\` of ${documents.toLocaleString("en-US")} documents against \`node dist/src/cli/main.js validate\``, forms: [released, node], args: [["validate", "-f", "."], ["validate", "-f", "."]], env, goal: 0.5 },
        ...(earlier === undefined ? [] : [{ what: `\`drift --output json\` of ${documents.toLocaleString("en-US")} documents against the earlier release's executable`, forms: [released, earlier], args: [["drift", "-f", ".", "--output", "json"], ["drift", "-f", ".", "--output", "json"]], env: driftEnv, goal: 0.8 }]),
      ];
      const runs = pairs.map(() => [[], []] as Measured[][]);
      for (let round = -1; round < rounds; round += 1) {
        for (const [p, pair] of pairs.entries()) {
          const measured = [] as Measured[];
          for (const [f, form] of pair.forms.entries()) measured.push(await measure(form, pair.args[f]!, pair.env, directory));
          // the first round warms the file system cache and is not counted
          if (round >= 0) measured.forEach((run, f) => runs[p]![f]!.push(run));
          if (p > 0 && measured[0]!.result.code !== measured[1]!.result.code) problems.push(`${pair.what}: exit ${measured[0]!.result.code} against ${measured[1]!.result.code}`);
          if (p === 2 && steadyReport(measured[0]!.result.stdout) !== steadyReport(measured[1]!.result.stdout)) problems.push(`${pair.what}: the reports differ (round ${round + 1})`);
        }
        if (round >= 0) process.stderr.write(`cli-executable: round ${round + 1}/${rounds}: ${pairs.map((pair, p) => `${pair.forms.map((form, f) => `${form.what} ${Math.round(runs[p]![f]!.at(-1)!.wallMs)} ms`).join(" / ")}`).join("; ")}\n`);
      }
      const rows = pairs.map((pair, p) => {
        const [ours, theirs] = runs[p]! as [Measured[], Measured[]];
        const ratio = median(ours.map((run, round) => run.wallMs / theirs[round]!.wallMs));
        const wall = (list: Measured[]) => Math.round(median(list.map((run) => run.wallMs)));
        const rss = (list: Measured[]) => median(list.map((run) => run.maxRssMiB)).toFixed(0);
        return { pair, ratio, row: `| ${pair.what} | ${wall(ours)} ms, ${rss(ours)} MiB | ${wall(theirs)} ms, ${rss(theirs)} MiB | ${ratio.toFixed(2)}× | ≤ ${pair.goal}×: ${ratio <= pair.goal ? "met" : "NOT met"} |` };
      });
      const markdown = [
        "### the CLI's executable, paired",
        "",
        "Each pair one after the other in every round (a first round uncounted); wall time from spawn to exit of the command itself, medians, the ratio the median of per-round ratios; peak RSS by GNU time in a second run of each.",
        "",
        "| command | the release's converge | paired with | ratio | goal |",
        "| --- | --- | --- | --- | --- |",
        ...rows.map((row) => row.row),
        "",
      ].join("\n");
      return { markdown, data: { executable, base, documents, ratios: rows.map((row) => row.ratio), wallMs: runs.map((pair) => pair.map((form) => form.map((run) => run.wallMs))), maxRssMiB: runs.map((pair) => pair.map((form) => form.map((run) => run.maxRssMiB))) }, problems };
    } finally {
      await service.close();
      await rm(directory, { recursive: true, force: true });
    }
  },
};
