import { createHash } from "node:crypto";
import pLimit from "p-limit";
import { isAborted, isConvergeError, type Clients } from "../clients/index.js";
import type { DesiredStateProblem, SourceLocation } from "../desired/desired-state-error.js";
import type { DesiredState, LoadedDocument } from "../desired/load.js";
import type { ProtocolType } from "../spec/gateway.js";
import { modelOf } from "../desired/kinds/registry.js";
import { SELF, readKeyText } from "../desired/read-key.js";
import { driftReport, type DriftField, type DriftReport, type DriftResource, type ShardSpec } from "./drift-report.js";
import { needsOfDocument } from "./kinds/registry.js";
import type { LiveApi, LiveNeed, LiveState, PlannedAction } from "./model.js";
import { needsOf, plan } from "./plan.js";
import type { Progress } from "./progress.js";
import { counted, readLive, readsOfNeed } from "./read-live.js";

/**
 * Drift detection (DESIGN.md §3 "Drift report"): reads what the documents need, never writes, and
 * puts every resource in one outcome. It plans with pruning on and maps the plan: no-op → in-sync,
 * update → drifted, create → missing, a prune delete → unmanaged, refused → refused, and a document
 * that could not be compared (its read failed, its API does not exist, its natural key is ambiguous)
 * → unknown with the reason. Plan semantics are untouched: drift only reads them.
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
export async function detectDrift(desired: Pick<DesiredState, "documents" | "fingerprint">, clients: Clients, options: DriftOptions = {}): Promise<DriftReport> {
  const documents = desired.documents;
  const generatedAt = (options.now?.() ?? new Date()).toISOString();
  let selected = documents;
  let directory: ApiDirectory | undefined;
  if (options.shard) {
    // shards are keyed by API ID: documents that name their API need the listing to find their shard
    if (needsOf(documents).some((need) => need.type === "api" && typeof need.ref !== "string")) directory = await listApis(clients, options.signal, options.progress);
    selected = documentsOfShard(documents, options.shard, directory);
  }
  const { live, failures } = await readLiveTolerant(needsOf(selected), clients, { parallelism: options.parallelism, signal: options.signal, directory, progress: options.progress });
  return driftReport({ generatedAt, shard: options.shard, desiredFingerprint: desired.fingerprint, resources: classifyDrift(selected, live, failures) });
}

// ---------------------------------------------------------------------------------------------
// Shards

/** The APIs of the account by name, with their protocols (one GetApis listing). */
export interface ApiDirectory {
  readonly idsByName: ReadonlyMap<string, ReadonlyArray<string>>;
  readonly protocols: ReadonlyMap<string, ProtocolType>;
}

export async function listApis(clients: Clients, signal?: AbortSignal, progress?: Progress): Promise<ApiDirectory> {
  const idsByName = new Map<string, string[]>();
  const protocols = new Map<string, ProtocolType>();
  progress?.expectReads(1);
  await counted(progress, 1, async () => {
    for await (const api of clients.gateway.apis({ signal })) {
      idsByName.set(api.name, [...(idsByName.get(api.name) ?? []), api.apiId]);
      protocols.set(api.apiId, api.protocolType);
    }
  });
  return { idsByName, protocols };
}

/**
 * What a document is sharded by: the read it needs (`api:<apiId>`, `contact:<account>/<type>`,
 * `regions:<account>`). All documents of one API land in one shard, with the API's unmanaged
 * resources: the shard that reads an API's listings is the only one that needs them, and it plans
 * every document that could claim a live route or integration of it. An API named by `{name}`
 * is keyed by its ID when the directory resolves the name to exactly one API.
 */
export function shardKeyOf(loaded: LoadedDocument, directory?: ApiDirectory): string {
  const need = needsOfDocument(loaded.document)[0];
  if (!need) return `${loaded.document.kind}/${modelOf(loaded.document.kind).identity(loaded.document)}`;
  if (need.type === "api" && typeof need.ref !== "string") {
    const ids = directory?.idsByName.get(need.ref.name) ?? [];
    return ids.length === 1 ? `api:${ids[0]}` : readKeyText(need);
  }
  return readKeyText(need);
}

/** Shard (0-based bucket) of a key among `count`: the first 48 bits of its sha256, modulo count. */
export function shardBucketOf(key: string, count: number): number {
  return Number.parseInt(createHash("sha256").update(key).digest("hex").slice(0, 12), 16) % count;
}

/** The documents of shard `index`/`count` (1-based index: shard 1 holds bucket 0). */
export function documentsOfShard(documents: ReadonlyArray<LoadedDocument>, shard: ShardSpec, directory?: ApiDirectory): LoadedDocument[] {
  return documents.filter((loaded) => shardBucketOf(shardKeyOf(loaded, directory), shard.count) === shard.index - 1);
}

// ---------------------------------------------------------------------------------------------
// Reading, one failure per need

/** Live state as far as it could be read, and why each unreadable need failed (by need key). */
export interface TolerantLive {
  readonly live: LiveState;
  readonly failures: ReadonlyMap<string, string>;
}

function describeNeed(need: LiveNeed): string {
  const account = (id: string) => (id === SELF ? "the caller's account" : `account ${id}`);
  if (need.type === "api") return typeof need.ref === "string" ? `the routes and integrations of API ${need.ref}` : `the API named ${JSON.stringify(need.ref.name)}`;
  return need.type === "contact" ? `the ${need.contactType} contact of ${account(need.account)}` : `the Regions of ${account(need.account)}`;
}

/**
 * readLive, one need at a time, so that a read that fails (after the transport's retries) makes only
 * the documents that need it unknown. Makes the same calls as readLive: one GetApis listing when an
 * API is named (or none when `directory` is given), then per API its two listings (and a GetApi when
 * its protocol is unknown), per contact one GetAlternateContact, per account one ListRegions.
 * Only converge's own errors (API, transport, contract) are tolerated; when every read failed,
 * nothing could be compared and the first error is thrown.
 */
export async function readLiveTolerant(
  needs: ReadonlyArray<LiveNeed>,
  clients: Clients,
  options: { parallelism?: number | undefined; signal?: AbortSignal | undefined; directory?: ApiDirectory | undefined; progress?: Progress | undefined } = {},
): Promise<TolerantLive> {
  const failures = new Map<string, string>();
  let attempted = 0;
  let failed = 0;
  let firstError: unknown;
  /** Records a failed read against the needs it serves (need key → what could not be read). */
  const tolerate = (error: unknown, unread: ReadonlyArray<readonly [key: string, what: string]>) => {
    if (!isConvergeError(error) || isAborted(error)) throw error;
    failed += 1;
    firstError ??= error;
    for (const [key, what] of unread) failures.set(key, `could not read ${what}: ${error.message}`);
  };

  let directory = options.directory;
  const namedNeeds = needs.filter((need) => need.type === "api" && typeof need.ref !== "string");
  if (!directory && namedNeeds.length > 0) {
    attempted += 1;
    try {
      directory = await listApis(clients, options.signal, options.progress);
    } catch (error) {
      tolerate(error, namedNeeds.map((need) => [readKeyText(need), `the list of APIs, to find ${describeNeed(need)}`] as const));
    }
  }

  // the reads to make, each with the keys of the needs it serves (an API may be needed by ID and by name)
  const reads = new Map<string, { need: LiveNeed; keys: string[] }>();
  for (const need of needs) {
    const key = readKeyText(need);
    if (need.type !== "api") {
      reads.set(key, { need, keys: [key] });
      continue;
    }
    const ids = typeof need.ref === "string" ? [need.ref] : directory?.idsByName.get(need.ref.name) ?? [];
    for (const apiId of ids) {
      const existing = reads.get(`api:${apiId}`);
      const protocolType = directory?.protocols.get(apiId) ?? need.protocolType ?? (existing?.need.type === "api" ? existing.need.protocolType : undefined);
      reads.set(`api:${apiId}`, { need: { type: "api", ref: apiId, protocolType }, keys: [...(existing?.keys ?? []), key] });
    }
  }

  const limit = pLimit(options.parallelism ?? 16);
  const parts: LiveState[] = [];
  const byType = (type: LiveNeed["type"]) => [...reads.values()].filter((read) => read.need.type === type);
  options.progress?.expectReads([...reads.values()].reduce((sum, read) => sum + readsOfNeed(read.need), 0));
  // interleaved by operation, as readLive does: the service throttles each operation on its own
  await Promise.all(interleave([byType("api"), byType("contact"), byType("regions")]).map((read) => limit(() => counted(options.progress, readsOfNeed(read.need), async () => {
    attempted += 1;
    try {
      parts.push(await readLive([read.need], clients, { parallelism: 1, signal: options.signal }));
    } catch (error) {
      tolerate(error, read.keys.map((key) => [key, describeNeed(read.need)] as const));
    }
  }))));
  if (attempted > 0 && failed === attempted) throw firstError;

  const apis: Record<string, LiveApi> = {};
  const contacts: Record<string, LiveState["contacts"][string]> = {};
  const regions: Record<string, LiveState["regions"][string]> = {};
  for (const part of parts) {
    Object.assign(apis, part.apis);
    Object.assign(contacts, part.contacts);
    Object.assign(regions, part.regions);
  }
  const apiIdsByName = directory ? Object.fromEntries([...directory.idsByName].map(([name, ids]) => [name, [...ids]])) : {};
  return { live: { apis: sortKeys(apis), apiIdsByName, contacts: sortKeys(contacts), regions: sortKeys(regions) }, failures };
}

function interleave<T>(lists: ReadonlyArray<ReadonlyArray<T>>): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i += 1) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---------------------------------------------------------------------------------------------
// Outcomes

/**
 * Every resource of `documents` (and every unmanaged one of the APIs they own) in one outcome. Pure:
 * documents whose reads failed are unknown; the others are planned with pruning on, and the plan's
 * actions and problems are mapped back to the documents that produced them (actions by their source,
 * problems by the document whose text holds their location).
 */
export function classifyDrift(documents: ReadonlyArray<LoadedDocument>, live: LiveState, failures: ReadonlyMap<string, string> = new Map()): DriftResource[] {
  const unknown = new Map<LoadedDocument, string>();
  for (const loaded of documents) {
    const reasons = needsOfDocument(loaded.document).map((need) => failures.get(readKeyText(need))).filter((reason): reason is string => reason !== undefined);
    if (reasons.length > 0) unknown.set(loaded, reasons.join("; "));
  }
  const comparable = documents.filter((loaded) => !unknown.has(loaded));
  // twins stay a finding (an ambiguous match): drift reports what is; apply repairs them
  const { plan: planned, problems } = plan(comparable, live, { prune: true, refuseTwins: true });
  const documentAt = documentLocator(comparable);
  for (const problem of problems) {
    const loaded = documentAt(problem);
    if (!loaded) throw new Error(`drift: the plan reported a problem outside every document (${problem.file}:${problem.line}: ${problem.message})`);
    const reason = `${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
    unknown.set(loaded, unknown.has(loaded) ? `${unknown.get(loaded)!}; ${reason}` : reason);
  }

  // APIs (and kinds) with a document that could not be compared: whether a live resource of that kind is declared there is unknown
  const undecided = new Map<string, LoadedDocument>();
  for (const loaded of unknown.keys()) for (const apiId of apiIdsOf(loaded, live)) undecided.set(`${apiId}/${loaded.document.kind}`, loaded);
  const created = new Set(planned.actions.flatMap((action) => (action.request?.op === "createIntegration" ? [`${action.request.apiId}/${action.request.name}`] : [])));

  const bySource = new Map(comparable.map((loaded) => [sourceKey(loaded.source), loaded] as const));
  const resources: DriftResource[] = [];
  const withOwnAction = new Set<LoadedDocument>();
  for (const action of planned.actions) {
    const loaded = action.source ? bySource.get(sourceKey(action.source)) : undefined;
    if (!loaded) throw new Error(`drift: the planned action ${action.address} has no document`);
    const own = loaded.document.kind === action.kind;
    if (own) withOwnAction.add(loaded);
    const resource = { address: action.address, kind: action.kind, identity: action.identity, source: action.source ?? null };
    if (!own) {
      // an undeclared resource of an API an Api document owns: what pruning would delete, or what the protections keep
      const blocker = apiIdsOf(loaded, live).map((apiId) => undecided.get(`${apiId}/${action.kind}`)).find((other) => other !== undefined);
      if (blocker) {
        resources.push({ ...resource, outcome: "unknown", fields: [], reason: `not declared by a compared document, but the ${blocker.document.kind} document at ${where(blocker.source)} could not be compared (${unknown.get(blocker)}), and it may declare this one` });
      } else if (action.type === "refused") {
        resources.push({ ...resource, outcome: "refused", fields: [], reason: `not declared, in an API the Api document at ${where(loaded.source)} owns, but protected: ${action.reason ?? "refused"}` });
      } else {
        resources.push({ ...resource, outcome: "unmanaged", fields: [], reason: `live but not declared, in an API the Api document at ${where(loaded.source)} owns` });
      }
      continue;
    }
    const pendingTarget = action.request && "targetIntegration" in action.request ? action.request.targetIntegration : undefined;
    const targetApi = action.request && "apiId" in action.request ? action.request.apiId : undefined;
    if (pendingTarget !== undefined && !created.has(`${targetApi}/${pendingTarget}`)) {
      resources.push({ ...resource, outcome: "unknown", fields: [], reason: `its target, integration ${JSON.stringify(pendingTarget)}, could not be compared, so neither can the route's target` });
      continue;
    }
    resources.push({ ...resource, ...outcomeOf(action, pendingTarget) });
  }
  for (const loaded of documents) {
    if (withOwnAction.has(loaded)) continue;
    const identity = modelOf(loaded.document.kind).identity(loaded.document);
    const reason = unknown.get(loaded);
    // a document that plans no action of its own and has no problem (an Api document) is in sync
    resources.push({ address: `${loaded.document.kind}/${identity}`, kind: loaded.document.kind, identity, outcome: reason === undefined ? "in-sync" : "unknown", fields: [], reason: reason ?? null, source: loaded.source });
  }
  return resources;
}

function outcomeOf(action: PlannedAction, pendingTarget: string | undefined): Pick<DriftResource, "outcome" | "fields" | "reason"> {
  // a target that names an integration still to be created: the document's own words, not apply's placeholder
  const fields = (): DriftField[] => action.changes.map((change) => ({
    path: change.path,
    desired: pendingTarget !== undefined && change.path === "target" ? { integration: pendingTarget } : change.after,
    live: change.before ?? null,
  }));
  switch (action.type) {
    case "no-op":
      return { outcome: "in-sync", fields: [], reason: null };
    case "update":
      return { outcome: "drifted", fields: fields(), reason: null };
    case "create":
      return { outcome: "missing", fields: fields(), reason: null };
    case "refused":
      return { outcome: "refused", fields: [], reason: action.reason ?? null };
    case "delete":
      // only `ensure: absent` makes a document plan a delete of its own resource
      return { outcome: "drifted", fields: [{ path: "ensure", desired: "absent", live: "present" }], reason: "declared ensure: absent, but it exists" };
  }
}

function sourceKey(source: SourceLocation): string {
  return `${source.file}\u0000${source.line}\u0000${source.column}`;
}

function where(source: SourceLocation): string {
  return `${source.file}:${source.line}`;
}

/** The API IDs a document's API reference resolves to in live state. */
function apiIdsOf(loaded: LoadedDocument, live: LiveState): string[] {
  return needsOfDocument(loaded.document).flatMap((need) => {
    if (need.type !== "api") return [];
    return typeof need.ref === "string" ? [need.ref] : [...(live.apiIdsByName[need.ref.name] ?? [])];
  });
}

/** The document whose text holds a location: the last one starting at or before it, in its file. */
function documentLocator(documents: ReadonlyArray<LoadedDocument>): (location: DesiredStateProblem) => LoadedDocument | undefined {
  const byFile = new Map<string, LoadedDocument[]>();
  for (const loaded of documents) {
    const list = byFile.get(loaded.source.file);
    if (list) list.push(loaded);
    else byFile.set(loaded.source.file, [loaded]);
  }
  for (const list of byFile.values()) list.sort((a, b) => a.source.line - b.source.line || a.source.column - b.source.column);
  const before = (a: SourceLocation, b: SourceLocation) => a.line < b.line || (a.line === b.line && a.column <= b.column);
  return (location) => {
    const list = byFile.get(location.file) ?? [];
    let found: LoadedDocument | undefined;
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (before(list[middle]!.source, location)) {
        found = list[middle];
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  };
}
