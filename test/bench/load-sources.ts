import { loadDesiredState } from "../../src/desired/load.js";
import { loadTerraformStates } from "../../src/desired/terraform-state.js";

/**
 * `node dist/test/bench/load-sources.js state|yaml PATH…`: loads terraform states
 * (loadTerraformStates) or desired-state files (loadDesiredState) once in a fresh process, as the
 * CLI does before it reads anything live, and prints one JSON line: the documents loaded, the load's
 * time and the process's peak resident memory (KiB). Run by experiments/drift-state.ts.
 */

/** What one load measured. */
export interface SourceLoad {
  readonly documents: number;
  readonly loadMs: number;
  readonly maxRssKiB: number;
}

/** Loads the sources of `source` kind at `paths`, timing it. */
export async function loadSources(source: "state" | "yaml", paths: ReadonlyArray<string>): Promise<{ documents: number; loadMs: number }> {
  const started = performance.now();
  const documents = source === "state"
    ? (await loadTerraformStates(paths)).reduce((sum, state) => sum + state.documents.length, 0)
    : (await loadDesiredState(paths)).documents.length;
  return { documents, loadMs: performance.now() - started };
}

async function main(): Promise<void> {
  const [source, ...paths] = process.argv.slice(2);
  if ((source !== "state" && source !== "yaml") || paths.length === 0) {
    throw new Error(`usage: load-sources state|yaml PATH…: received ${JSON.stringify(process.argv.slice(2))}`);
  }
  const measured = await loadSources(source, paths);
  const result: SourceLoad = { ...measured, maxRssKiB: process.resourceUsage().maxRSS };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1]?.endsWith("load-sources.js")) {
  try {
    await main();
  } catch (error) {
    process.stderr.write(`load-sources: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
