import pLimit from "p-limit";
import { isAborted, isConvergeError, type Clients } from "../clients/index.js";
import { readKeyText } from "../desired/read-key.js";
import type { ProtocolType } from "../contract/gateway.js";
import type { LiveCollections, ReadKeySource } from "./kinds/kind-engine.js";
import { READ_KEY_SOURCES } from "./kinds/registry.js";
import type { LiveApi, LiveNeed, LiveState } from "./model.js";
import type { Progress } from "./progress.js";

export interface ReadOptions {
  /** Reads in flight at once. @default 16 */
  readonly parallelism?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Counts every read (a get, or a listing with all its pages) against the reads expected. */
  readonly progress?: Progress | undefined;
}

export interface TolerantReadOptions extends ReadOptions {
  /** The APIs by name, when the caller listed them already (drift shards); else listed here when a need names an API. */
  readonly directory?: ApiDirectory | undefined;
}

/** Live state as far as it could be read, and why each unreadable need failed (by need key, readKeyText). */
export interface TolerantLive {
  readonly live: LiveState;
  readonly failures: ReadonlyMap<string, string>;
}

/** The APIs of the account by name, with their protocols and names (one GetApis listing). */
export interface ApiDirectory {
  readonly idsByName: ReadonlyMap<string, ReadonlyArray<string>>;
  readonly protocols: ReadonlyMap<string, ProtocolType>;
  readonly names: ReadonlyMap<string, string>;
}

/**
 * Reads the live state the needs name, with the fewest calls: one GetApis listing only when an
 * API is referenced by name (it also gives protocols), then what each read key's source reads
 * (kinds/registry.ts): per API its two listings (and a GetApi when its protocol is unknown), per
 * contact one GetAlternateContact, per account one ListRegions listing. The first failure fails it.
 */
export async function readLive(needs: ReadonlyArray<LiveNeed>, clients: Clients, options: ReadOptions = {}): Promise<LiveState> {
  return (await readLiveState(needs, clients, options, false)).live;
}

/**
 * readLive, tolerating failures one need at a time, so that a read that fails (after the
 * transport's retries) makes only the documents that need it unknown. Makes the same calls as
 * readLive (no GetApis listing when `directory` is given). Only converge's own errors (API,
 * transport, contract) are tolerated; when every read failed, nothing could be compared and the
 * first error is thrown.
 */
export async function readLiveTolerant(needs: ReadonlyArray<LiveNeed>, clients: Clients, options: TolerantReadOptions = {}): Promise<TolerantLive> {
  return readLiveState(needs, clients, options, true);
}

/** The needs of APIs whose protocol a source recorded, with it (so that reading them makes no GetApi). */
export function withKnownProtocols(needs: ReadonlyArray<LiveNeed>, protocols: ReadonlyMap<string, ProtocolType> | undefined): LiveNeed[] {
  if (protocols === undefined || protocols.size === 0) return [...needs];
  return needs.map((need) => {
    if (need.type !== "api" || need.protocolType || typeof need.ref !== "string") return need;
    const protocolType = protocols.get(need.ref);
    return protocolType === undefined ? need : { ...need, protocolType };
  });
}

/** The APIs of the account by name (one GetApis listing, counted as one read). */
export async function listApis(clients: Clients, signal?: AbortSignal, progress?: Progress): Promise<ApiDirectory> {
  const idsByName = new Map<string, string[]>();
  const protocols = new Map<string, ProtocolType>();
  const names = new Map<string, string>();
  progress?.expectReads(1);
  await counted(progress, 1, async () => {
    for await (const api of clients.gateway.apis({ signal })) {
      idsByName.set(api.name, [...(idsByName.get(api.name) ?? []), api.apiId]);
      protocols.set(api.apiId, api.protocolType);
      names.set(api.apiId, api.name);
    }
  });
  return { idsByName, protocols, names };
}

async function readLiveState(needs: ReadonlyArray<LiveNeed>, clients: Clients, options: TolerantReadOptions, tolerant: boolean): Promise<TolerantLive> {
  const failures = new Map<string, string>();
  let attempted = 0;
  let failed = 0;
  let firstError: unknown;
  /** Records a failed read against the needs it serves (need key → what could not be read), or throws it. */
  const tolerate = (error: unknown, unread: ReadonlyArray<readonly [key: string, what: string]>) => {
    if (!tolerant || !isConvergeError(error) || isAborted(error)) throw error;
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

  const reads = readsOf(needs, directory);
  const limit = pLimit(options.parallelism ?? 16);
  const parts: Array<Partial<LiveCollections>> = [];
  options.progress?.expectReads([...reads.values()].reduce((sum, read) => sum + sourceOf(read.need).count(read.need), 0));
  // one queue per read key type, interleaved: the service throttles each operation on its own, so
  // their reads must proceed side by side rather than one operation's backlog holding every slot
  const byType = Object.keys(READ_KEY_SOURCES).map((type) => [...reads.values()].filter((read) => read.need.type === type));
  await Promise.all(interleave(byType).map((read) => limit(() => counted(options.progress, sourceOf(read.need).count(read.need), async (readDone) => {
    attempted += 1;
    try {
      parts.push(await sourceOf(read.need).read(read.need, { clients, signal: options.signal, readDone }));
    } catch (error) {
      tolerate(error, read.keys.map((key) => [key, describeNeed(read.need)] as const));
    }
  }))));
  if (attempted > 0 && failed === attempted) throw firstError;

  const apiIdsByName = directory ? Object.fromEntries([...directory.idsByName].map(([name, ids]) => [name, [...ids]])) : {};
  const { apis, contacts, regions } = mergedCollections(parts);
  return { live: { apis, apiIdsByName, contacts, regions }, failures };
}

/** The parts of live state several reads answered, as one: each collection merged, its records in key order. */
export function mergedCollections(parts: ReadonlyArray<Partial<LiveCollections>>): LiveCollections {
  const apis: Record<string, LiveApi> = {};
  const contacts: Record<string, LiveState["contacts"][string]> = {};
  const regions: Record<string, LiveState["regions"][string]> = {};
  for (const part of parts) {
    Object.assign(apis, part.apis);
    Object.assign(contacts, part.contacts);
    Object.assign(regions, part.regions);
  }
  return { apis: sortKeys(apis), contacts: sortKeys(contacts), regions: sortKeys(regions) };
}

/**
 * The reads to make, each with the keys of the needs it serves: an API named by `{name}` is read
 * by the IDs the directory gives it (an API may be needed by ID and by name, and is read once),
 * with the protocol and name the listing told.
 */
function readsOf(needs: ReadonlyArray<LiveNeed>, directory: ApiDirectory | undefined): Map<string, { need: LiveNeed; keys: string[] }> {
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
      const name = directory?.names.get(apiId);
      reads.set(`api:${apiId}`, {
        need: { type: "api", ref: apiId, protocolType, ...(name !== undefined ? { name } : {}) },
        keys: [...(existing?.keys ?? []), key],
      });
    }
  }
  return reads;
}

/** How a need is read: the source its read key type registered (kinds/registry.ts). */
export function sourceOf<N extends LiveNeed>(need: N): ReadKeySource<N> {
  return READ_KEY_SOURCES[need.type] as unknown as ReadKeySource<N>;
}

/** What a need reads, for people. */
export function describeNeed(need: LiveNeed): string {
  return sourceOf(need).describe(need);
}

/**
 * Runs `read`, which makes `reads` of the reads expected and calls `readDone` after each one it
 * finishes. Those it did not make (an API that does not exist, a read that failed) are counted done
 * when it ends, so that the count reaches its total.
 */
export async function counted(progress: Progress | undefined, reads: number, read: (readDone: () => void) => Promise<void>): Promise<void> {
  if (!progress) return read(() => undefined);
  let done = 0;
  try {
    await read(() => {
      if (done < reads) {
        done += 1;
        progress.readDone();
      }
    });
  } finally {
    for (; done < reads; done += 1) progress.readDone();
  }
}

/** Items of several lists, alternating between the lists. */
function interleave<T>(lists: ReadonlyArray<ReadonlyArray<T>>): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i += 1) for (const list of lists) if (i < list.length) out.push(list[i]!);
  return out;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
