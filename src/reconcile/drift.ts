import type { Clients } from "../clients/index.js";
import type { ProtocolType } from "../contract/gateway.js";
import { ALTERNATE_CONTACT_TYPES } from "../contract/account.js";
import type { LoadedDocument } from "../desired/load.js";
import type { VariablesRecord } from "../desired/variable-record.js";
import { SELF, readKeyText } from "../desired/read-key.js";
import { classifyEstate, type DriftSources } from "./drift-estate.js";
import { driftReport, type DriftReport, type ShardSpec } from "./drift-report.js";
import { documentsOfShard, shardBucketOf } from "./drift-shards.js";
import { listApis, readLiveTolerant, withKnownProtocols, type ApiDirectory } from "./live-reader.js";
import type { LiveNeed } from "./model.js";
import { needsOf } from "./plan.js";
import type { Progress } from "./progress.js";
import type { UnmanagedScope } from "./unmanaged-scope.js";

/**
 * Drift detection (docs/manual/drift.md): reads what the sources need (live-reader.ts) and what the
 * scope adds, never writes, and puts every resource in one outcome (drift-estate.ts,
 * drift-classify.ts); a shard reads and classifies only its own documents (drift-shards.ts).
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
  /** What `unmanaged` may mean. @default "owned" */
  readonly scope?: UnmanagedScope | undefined;
  /** Accounts whose contacts and Regions `--unmanaged all` reads besides the caller's and those the sources name (`--account`). */
  readonly accounts?: ReadonlyArray<string> | undefined;
}

/** Every source of one run: the desired state's documents, the states' resources and inventories, and the fingerprint of them all. */
export type DriftInput = Omit<DriftSources, "scope"> & {
  readonly fingerprint: string;
  /** API protocols the sources recorded (a state's `converge_api` data sources): no GetApi is made for them. */
  readonly apiProtocols?: ReadonlyMap<string, ProtocolType> | undefined;
  /** The variables the documents were read with (the fingerprint covers their values). */
  readonly variables?: VariablesRecord | undefined;
};

/**
 * Detects the drift of every source. For a shard, the sources may be all of them or those a loader
 * kept for the shard (see drift-command): the shard's own are selected here by read key, so that
 * all shards agree. The report carries the fingerprint of every source, not only the shard's.
 */
export async function detectDrift(input: DriftInput, clients: Clients, options: DriftOptions = {}): Promise<DriftReport> {
  const generatedAt = (options.now?.() ?? new Date()).toISOString();
  const scope = options.scope ?? "owned";
  const groups = { documents: input.documents, stateDocuments: input.stateDocuments ?? [], claims: input.claims ?? [] };
  const every = [...groups.documents, ...groups.stateDocuments, ...groups.claims];
  let directory: ApiDirectory | undefined;
  // shards are keyed by API ID: documents that name their API need the listing to find their shard; the whole scope needs every API
  if (scope === "all" || (options.shard && needsOf(every).some((need) => need.type === "api" && typeof need.ref !== "string"))) {
    directory = await listApis(clients, options.signal, options.progress);
  }
  const select = (documents: ReadonlyArray<LoadedDocument>) => (options.shard ? documentsOfShard(documents, options.shard, directory) : [...documents]);
  const selected = { documents: select(groups.documents), stateDocuments: select(groups.stateDocuments), claims: select(groups.claims) };
  const needs = needsOf([...selected.documents, ...selected.stateDocuments, ...selected.claims]);
  if (scope === "all" && directory) needs.push(...scopeNeeds(directory, accountsInScope(every, options.accounts ?? []), options.shard));
  const { live, failures } = await readLiveTolerant(dedupe(withKnownProtocols(needs, input.apiProtocols)), clients, {
    parallelism: options.parallelism,
    signal: options.signal,
    directory,
    progress: options.progress,
  });
  const { resources, coverage } = classifyEstate({ ...selected, scope, attributeOf: input.attributeOf }, live, failures);
  return driftReport({ generatedAt, shard: options.shard, desiredFingerprint: input.fingerprint, variables: input.variables, resources, coverage });
}

/** The caller's account, every account a source names, and the accounts asked for. */
function accountsInScope(documents: ReadonlyArray<LoadedDocument>, asked: ReadonlyArray<string>): string[] {
  const accounts = new Set<string>([SELF]);
  for (const { document } of documents) if ("account" in document && typeof document.account === "string") accounts.add(document.account);
  for (const account of asked) accounts.add(account);
  return [...accounts];
}

/** What `--unmanaged all` reads besides the sources' needs: every API's children, every contact and the Regions of each account in scope (a shard's share). */
function scopeNeeds(directory: ApiDirectory, accounts: ReadonlyArray<string>, shard: ShardSpec | undefined): LiveNeed[] {
  const needs: LiveNeed[] = [
    ...[...directory.protocols].map(([apiId, protocolType]): LiveNeed => ({ type: "api", ref: apiId, protocolType, name: directory.names.get(apiId) })),
    ...accounts.flatMap((account): LiveNeed[] => [
      ...ALTERNATE_CONTACT_TYPES.map((contactType): LiveNeed => ({ type: "contact", account, contactType })),
      { type: "regions", account },
    ]),
  ];
  return shard ? needs.filter((need) => shardBucketOf(readKeyText(need), shard.count) === shard.index - 1) : needs;
}

/** Needs without repeats (by read key), keeping the one that knows its API's protocol. */
function dedupe(needs: ReadonlyArray<LiveNeed>): LiveNeed[] {
  const byKey = new Map<string, LiveNeed>();
  for (const need of needs) {
    const key = readKeyText(need);
    const existing = byKey.get(key);
    if (!existing || (need.type === "api" && need.protocolType && !(existing.type === "api" && existing.protocolType))) byKey.set(key, need);
  }
  return [...byKey.values()];
}
