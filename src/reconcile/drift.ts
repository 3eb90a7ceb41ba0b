import type { Clients } from "../clients/index.js";
import type { DesiredState } from "../desired/load.js";
import { classifyDrift } from "./drift-classify.js";
import { driftReport, type DriftReport, type ShardSpec } from "./drift-report.js";
import { documentsOfShard } from "./drift-shards.js";
import { listApis, readLiveTolerant, type ApiDirectory } from "./live-reader.js";
import { needsOf } from "./plan.js";
import type { Progress } from "./progress.js";

/**
 * Drift detection (docs/manual/drift.md): reads what the documents need (live-reader.ts),
 * never writes, and puts every resource in one outcome (drift-classify.ts); a shard reads and
 * classifies only its own documents (drift-shards.ts).
 */

export interface DriftOptions {
  /** Check only this shard's resources (and read only what they need). */
  readonly shard?: ShardSpec | undefined;
  /** Reads in flight at once. @default 16 */
  readonly parallelism?: number;
  readonly signal?: AbortSignal | undefined;
  /** The clock of `generatedAt` (tests). */
  readonly now?: () => Date;
  /** Counts the reads (see read-live). */
  readonly progress?: Progress | undefined;
}

/**
 * Detects the drift of the desired state's documents. For a shard, they may be every document or
 * those a loader kept for the shard (see drift-command): the shard's own are selected here by read
 * key, so that all shards agree. The report carries the fingerprint of the whole desired state.
 */
export async function detectDrift(
  desired: Pick<DesiredState, "documents" | "fingerprint">,
  clients: Clients,
  options: DriftOptions = {},
): Promise<DriftReport> {
  const documents = desired.documents;
  const generatedAt = (options.now?.() ?? new Date()).toISOString();
  let selected = documents;
  let directory: ApiDirectory | undefined;
  if (options.shard) {
    // shards are keyed by API ID: documents that name their API need the listing to find their shard
    if (needsOf(documents).some((need) => need.type === "api" && typeof need.ref !== "string")) {
      directory = await listApis(clients, options.signal, options.progress);
    }
    selected = documentsOfShard(documents, options.shard, directory);
  }
  const { live, failures } = await readLiveTolerant(needsOf(selected), clients, {
    parallelism: options.parallelism,
    signal: options.signal,
    directory,
    progress: options.progress,
  });
  const resources = classifyDrift(selected, live, failures);
  const managed = resources.filter((resource) => resource.outcome === "in-sync" || resource.outcome === "drifted").length;
  const unmanaged = resources.filter((resource) => resource.outcome === "unmanaged").length;
  return driftReport({ generatedAt, shard: options.shard, desiredFingerprint: desired.fingerprint, resources, coverage: { managed, live: managed + unmanaged } });
}
