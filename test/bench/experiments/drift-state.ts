import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { DriftReport } from "../../../src/reconcile/drift-report.js";
import { startService } from "../../../src/service/index.js";
import { runProcess } from "../../support/run-process.js";
import { ESTATE_TOKEN, estateWorld, LOWER_BOUND_CALLS, writeEstate } from "../estate.js";
import { writeEstateState, writeRouteSources } from "../estate-state.js";
import type { BenchExperiment } from "../experiment.js";
import { loadSources, type SourceLoad } from "../load-sources.js";
import { runCli } from "../run-cli.js";
import { readsByOperation, totalOf } from "../service-reads.js";
import { median } from "../stats.js";

/** The world of drift-estate: 10 ms latency and a throttle of 1000/s (burst 100) per identity and operation. */
const LATENCY_MS = 10;
const THROTTLE = { ratePerSecond: 1000, burst: 100 };
const PARALLELISM = 64;
const LIMIT = "1000:80";
/** The large state: routes over several APIs. */
const BULK = { apis: 100, perApi: 500 };
/** The large loads take seconds each: at most this many rounds of them. */
const BULK_ROUNDS = 3;
const MAX_RSS_MIB = 512;

const SOURCES = ["yaml", "state"] as const;
type Source = (typeof SOURCES)[number];

const LOAD_SOURCES = fileURLToPath(new URL("../load-sources.js", import.meta.url));


/** The sources in the order a round runs them: rotated, so that neither always goes first. */
const rotated = (round: number): ReadonlyArray<Source> => (round % 2 === 0 ? SOURCES : [...SOURCES].reverse());

/** Loads the sources in a fresh node process (load-sources.ts): its load time, peak memory and wall time. */
async function loadInChild(source: Source, path: string): Promise<SourceLoad & { wallMs: number }> {
  const run = await runProcess(process.execPath, [LOAD_SOURCES, source, path], { env: { ...(process.env as Record<string, string>) } });
  if (run.code !== 0) throw new Error(`load-sources ${source} ${path} exited ${run.code}: ${run.stderr.slice(0, 400)}`);
  return { ...(JSON.parse(run.stdout) as SourceLoad), wallMs: run.wallMs };
}

/** Total bytes of the files under `path` (a file: its size). */
async function bytesOf(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.size;
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(entries.filter((entry) => entry.isFile()).map((entry) => stat(join(entry.parentPath, entry.name)).then((file) => file.size)));
  return sizes.reduce((sum, size) => sum + size, 0);
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const ms = (value: number) => `${Math.round(value)} ms`;
const verdict = (met: boolean) => (met ? "met" : "NOT met");

interface DriftRun {
  readonly wallMs: number;
  /** Read requests answered (not throttled). */
  readonly reads: number;
  readonly byOperation: Readonly<Record<string, number>>;
  /** Answers 429 (the client retries them). */
  readonly throttled: number;
  readonly code: number | null;
  readonly maxRssMiB: number | undefined;
}

/** Per source, the measurements of every round. */
type BySource<T> = Record<Source, T[]>;
const bySource = <T>(): BySource<T> => ({ yaml: [], state: [] });

/**
 * Issue 31: drift of the 5,440-document estate from its YAML documents against drift of the same
 * resources from a terraform state (written from the live estate after applying the YAML, as
 * converge's provider stores them): the CLI's wall time, reads and exit code, and the sources' load
 * time in a fresh process and in-process; then loading a state of 50,000 routes against loading
 * the same routes as YAML documents, each in its own process (load time, peak memory, file sizes).
 */
export const driftState: BenchExperiment = {
  name: "drift-state",
  description: `converge drift of the estate from YAML vs from a terraform state of the same resources; loading ${(BULK.apis * BULK.perApi).toLocaleString("en-US")} routes from a state vs from YAML`,
  async run({ rounds }) {
    const loadBefore = loadavg()[0]!;
    const directory = await mkdtemp(join(tmpdir(), "converge-drift-state-"));
    const yamlDir = join(directory, "estate");
    const stateFile = join(directory, "estate.tfstate");
    const bulkYaml = join(directory, "bulk");
    const bulkState = join(directory, "bulk.tfstate");
    const service = await startService({ port: 0, world: estateWorld({ latencyMs: LATENCY_MS, throttle: THROTTLE }) });
    const env = { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ESTATE_TOKEN };
    const problems: string[] = [];
    const drift = bySource<DriftRun>();
    const childLoad = bySource<SourceLoad & { wallMs: number }>();
    const inProcess = bySource<number>();
    const bulk = bySource<SourceLoad & { wallMs: number }>();
    const bulkRounds = Math.min(rounds, BULK_ROUNDS);
    let documentCount = 0;
    let instanceCount = 0;
    let bulkCount = 0;
    const summaries: Partial<Record<Source, DriftReport["summary"]>> = {};
    const sizes = { yaml: 0, state: 0, bulkYaml: 0, bulkState: 0 };
    try {
      documentCount = await writeEstate(yamlDir);
      process.stderr.write(`drift-state: ${documentCount} documents; initial apply…\n`);
      const apply = await runCli(["apply", "-f", yamlDir, "--auto-approve", "--parallelism", String(PARALLELISM), "--rate-limit", LIMIT], env);
      if (apply.code !== 0) problems.push(`initial apply exited ${apply.code}: ${apply.stderr.slice(0, 400)}`);
      instanceCount = await writeEstateState(service.url, stateFile);
      sizes.yaml = await bytesOf(yamlDir);
      sizes.state = await bytesOf(stateFile);
      const args: Record<Source, string[]> = { yaml: ["-f", yamlDir], state: ["--state", stateFile] };
      const paths: Record<Source, string> = { yaml: yamlDir, state: stateFile };
      // one unmeasured run of each, so that the file system cache holds both
      for (const source of SOURCES) {
        await runCli(["drift", ...args[source], "--output", "json"], env);
        await loadSources(source, [paths[source]]);
      }
      for (let round = 0; round < rounds; round += 1) {
        for (const source of rotated(round)) {
          service.requests.reset();
          const run = await runCli(["drift", ...args[source], "--output", "json", "--parallelism", String(PARALLELISM), "--rate-limit", LIMIT], env);
          const byOperation = readsByOperation(service);
          drift[source].push({ wallMs: run.wallMs, reads: totalOf(byOperation), byOperation, throttled: service.requests.count({ status: 429 }), code: run.code, maxRssMiB: run.maxRssMiB });
          if (run.code !== 0) problems.push(`round ${round + 1}: drift from ${source} exited ${run.code} (expected 0, in sync): ${run.stderr.slice(0, 300)}`);
          try {
            summaries[source] = (JSON.parse(run.stdout) as DriftReport).summary;
          } catch (error) {
            problems.push(`round ${round + 1}: the report of drift from ${source} is not JSON: ${(error as Error).message}`);
          }
          childLoad[source].push(await loadInChild(source, paths[source]));
          inProcess[source].push((await loadSources(source, [paths[source]])).loadMs);
        }
        const last = (source: Source) => `${ms(drift[source].at(-1)!.wallMs)}, ${drift[source].at(-1)!.reads} reads, load ${ms(childLoad[source].at(-1)!.loadMs)} (child) / ${ms(inProcess[source].at(-1)!)} (in-process)`;
        process.stderr.write(`drift-state: round ${round + 1}/${rounds}: yaml ${last("yaml")}; state ${last("state")}\n`);
      }

      bulkCount = await writeRouteSources(bulkState, bulkYaml, BULK.apis, BULK.perApi);
      sizes.bulkYaml = await bytesOf(bulkYaml);
      sizes.bulkState = await bytesOf(bulkState);
      const bulkPaths: Record<Source, string> = { yaml: bulkYaml, state: bulkState };
      for (let round = 0; round < bulkRounds; round += 1) {
        for (const source of rotated(round)) {
          const load = await loadInChild(source, bulkPaths[source]);
          if (load.documents !== bulkCount) problems.push(`round ${round + 1}: ${source} of the ${bulkCount} routes loaded ${load.documents} documents`);
          bulk[source].push(load);
        }
        process.stderr.write(`drift-state: ${bulkCount} routes, round ${round + 1}/${bulkRounds}: ${SOURCES.map((source) => `${source} ${ms(bulk[source].at(-1)!.loadMs)}, ${(bulk[source].at(-1)!.maxRssKiB / 1024).toFixed(0)} MiB`).join("; ")}\n`);
      }
    } finally {
      await service.close();
      await rm(directory, { recursive: true, force: true });
    }
    const readsOf = (source: Source) => median(drift[source].map((run) => run.reads));
    const wallOf = (source: Source) => median(drift[source].map((run) => run.wallMs));
    const childOf = (source: Source) => median(childLoad[source].map((load) => load.loadMs));
    const inProcessOf = (source: Source) => median(inProcess[source]);
    const bulkOf = (source: Source) => median(bulk[source].map((load) => load.loadMs));
    const peakOf = (source: Source) => Math.max(...bulk[source].map((load) => load.maxRssKiB)) / 1024;
    const perRound = <T>(values: BySource<T>, ratio: (state: T, yaml: T) => number) => median(values.state.map((state, i) => ratio(state, values.yaml[i]!)));
    const childRatio = perRound(childLoad, (state, yaml) => state.loadMs / yaml.loadMs);
    const inProcessRatio = perRound(inProcess, (state, yaml) => state / yaml);
    const bulkRatio = perRound(bulk, (state, yaml) => state.loadMs / yaml.loadMs);
    const operations = (source: Source) => Object.entries(drift[source].at(-1)?.byOperation ?? {}).map(([operation, count]) => `${operation} ${count}`).join(", ");
    const exits = (source: Source) => [...new Set(drift[source].map((run) => run.code))].join(", ");
    const bothBound = readsOf("yaml") === LOWER_BOUND_CALLS && readsOf("state") === LOWER_BOUND_CALLS;
    const markdown = [
      `### Drift from a terraform state: ${documentCount.toLocaleString("en-US")} documents vs a state of ${instanceCount.toLocaleString("en-US")} instances; ${bulkCount.toLocaleString("en-US")} routes`,
      "",
      `The drift-estate world (latency ${LATENCY_MS} ms, throttle ${THROTTLE.ratePerSecond}/s, burst ${THROTTLE.burst}), no drift. The estate applied from its YAML documents, then a terraform state (format 4) written from the live estate with the attributes converge's provider stores after a refresh (a counted \`converge_integration\` and \`converge_route\` per API, \`for_each\` contacts and Region opt-ins; the 40 \`Api\` documents have no terraform resource). \`converge drift -f DIR\` against \`converge drift --state FILE\` (both \`--output json --parallelism ${PARALLELISM} --rate-limit ${LIMIT}\`), the order rotated each round, ${rounds} round${rounds === 1 ? "" : "s"}, medians; the sources' load also timed in a fresh node process (\`test/bench/load-sources.ts\`: what the CLI does before it reads live) and in the bench process (warm), right after each drift. Then ${bulkCount.toLocaleString("en-US")} routes (${BULK.apis} APIs × ${BULK.perApi}) as one state and as the same routes' documents (route IDs pinned, one YAML file per API), each loaded in its own process, ${bulkRounds} round${bulkRounds === 1 ? "" : "s"} rotated, medians. Summary of the drift reports: yaml ${JSON.stringify(summaries.yaml ?? "n/a")}, state ${JSON.stringify(summaries.state ?? "n/a")}.`,
      "",
      "| measure | from YAML (`-f`) | from the state (`--state`) | goal |",
      "| --- | --- | --- | --- |",
      `| source size | ${mib(sizes.yaml)} (${documentCount.toLocaleString("en-US")} documents) | ${mib(sizes.state)} (${instanceCount.toLocaleString("en-US")} instances) | |`,
      `| \`converge drift\` wall time (median) | ${ms(wallOf("yaml"))} | ${ms(wallOf("state"))} (${(wallOf("state") / wallOf("yaml")).toFixed(2)}×) | |`,
      `| reads answered (median; throttled answers left out) | ${readsOf("yaml")} (${operations("yaml")}) | ${readsOf("state")} (${operations("state")}) | both ${LOWER_BOUND_CALLS} (the lower bound): ${verdict(bothBound)} |`,
      `| throttled answers (429, median) | ${median(drift.yaml.map((run) => run.throttled))} | ${median(drift.state.map((run) => run.throttled))} | |`,
      `| exit codes | ${exits("yaml")} | ${exits("state")} | 0 (in sync): ${verdict(exits("yaml") === "0" && exits("state") === "0")} |`,
      `| peak memory of the drift process | ${drift.yaml.map((run) => run.maxRssMiB ?? 0).reduce((a, b) => Math.max(a, b), 0).toFixed(0)} MiB | ${drift.state.map((run) => run.maxRssMiB ?? 0).reduce((a, b) => Math.max(a, b), 0).toFixed(0)} MiB | |`,
      `| load in a fresh process (median) | ${ms(childOf("yaml"))} | ${ms(childOf("state"))}: ${childRatio.toFixed(2)}× (median of per-round ratios) | ≤ 1.0: ${verdict(childRatio <= 1)} |`,
      `| load in-process, warm (median) | ${ms(inProcessOf("yaml"))} | ${ms(inProcessOf("state"))}: ${inProcessRatio.toFixed(2)}× | ≤ 1.0: ${verdict(inProcessRatio <= 1)} |`,
      `| ${bulkCount.toLocaleString("en-US")} routes: file size | ${mib(sizes.bulkYaml)} (${BULK.apis} files) | ${mib(sizes.bulkState)} (one state) | |`,
      `| ${bulkCount.toLocaleString("en-US")} routes: load in a fresh process (median) | ${ms(bulkOf("yaml"))} | ${ms(bulkOf("state"))}: ${bulkRatio.toFixed(2)}× | ≤ 1.0: ${verdict(bulkRatio <= 1)} |`,
      `| ${bulkCount.toLocaleString("en-US")} routes: peak memory of the process | ${peakOf("yaml").toFixed(0)} MiB | ${peakOf("state").toFixed(0)} MiB | < ${MAX_RSS_MIB} MiB: ${verdict(peakOf("yaml") < MAX_RSS_MIB && peakOf("state") < MAX_RSS_MIB)} |`,
      "",
      `Per round — drift ms yaml: ${drift.yaml.map((run) => Math.round(run.wallMs)).join(" / ")}, state: ${drift.state.map((run) => Math.round(run.wallMs)).join(" / ")}; fresh-process load ms yaml: ${childLoad.yaml.map((load) => Math.round(load.loadMs)).join(" / ")}, state: ${childLoad.state.map((load) => Math.round(load.loadMs)).join(" / ")}; ${bulkCount.toLocaleString("en-US")} routes ms yaml: ${bulk.yaml.map((load) => Math.round(load.loadMs)).join(" / ")}, state: ${bulk.state.map((load) => Math.round(load.loadMs)).join(" / ")}. Load average before the run: ${loadBefore.toFixed(2)} on ${availableParallelism()} CPUs.`,
      "",
    ].join("\n");
    if (!bothBound) problems.push(`reads: yaml ${readsOf("yaml")}, state ${readsOf("state")} (expected ${LOWER_BOUND_CALLS} each)`);
    return {
      markdown,
      data: { documentCount, instanceCount, bulkCount, sizes, drift, childLoad, inProcess, bulk, ratios: { childRatio, inProcessRatio, bulkRatio }, summaries, loadBefore },
      problems,
    };
  },
};
