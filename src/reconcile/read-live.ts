import pLimit from "p-limit";
import { collect, isNotFound, type Clients } from "../clients/index.js";
import type { ProtocolType } from "../spec/gateway.js";
import type { AlternateContact, Region } from "../spec/account.js";
import { SELF } from "../desired/read-key.js";
import type { LiveApi, LiveNeed, LiveState } from "./model.js";
import type { Progress } from "./progress.js";

export interface ReadOptions {
  /** Reads in flight at once. @default 16 */
  readonly parallelism?: number;
  readonly signal?: AbortSignal | undefined;
  /** Counts every read (a get, or a listing with all its pages) against the reads expected. */
  readonly progress?: Progress | undefined;
}

const accountField = (account: string) => (account === SELF ? {} : { AccountId: account });

/**
 * Reads the live state the needs name, with the fewest calls: one GetApis listing only when an
 * API is referenced by name (it also gives protocols), one GetApi per API whose protocol nothing
 * declared, one paged listing per API per collection, one GetAlternateContact per contact and one
 * ListRegions listing per account. An API's two listings share its slot (they run side by side).
 */
export async function readLive(needs: ReadonlyArray<LiveNeed>, clients: Clients, options: ReadOptions = {}): Promise<LiveState> {
  const limit = pLimit(options.parallelism ?? 16);
  const signal = options.signal;
  const progress = options.progress;
  const apiNeeds = needs.filter((need): need is Extract<LiveNeed, { type: "api" }> => need.type === "api");

  const apiIdsByName: Record<string, string[]> = {};
  const knownProtocols = new Map<string, ProtocolType>();
  const knownNames = new Map<string, string>();
  if (apiNeeds.some((need) => typeof need.ref !== "string")) {
    progress?.expectReads(1);
    await counted(progress, 1, async (readDone) => {
      for await (const api of clients.gateway.apis({ signal })) {
        (apiIdsByName[api.name] ??= []).push(api.apiId);
        knownProtocols.set(api.apiId, api.protocolType);
        knownNames.set(api.apiId, api.name);
      }
      readDone();
    });
  }
  const apiIds = new Set<string>();
  for (const need of apiNeeds) {
    const ids = typeof need.ref === "string" ? [need.ref] : apiIdsByName[need.ref.name] ?? [];
    for (const id of ids) {
      apiIds.add(id);
      if (need.protocolType && !knownProtocols.has(id)) knownProtocols.set(id, need.protocolType);
    }
  }

  const apis: Record<string, LiveApi> = {};
  const contacts: Record<string, AlternateContact | null> = {};
  const regions: Record<string, Record<string, Region["RegionOptStatus"]>> = {};
  const readsOfApi = (apiId: string) => readsOfNeed({ type: "api", ref: apiId, protocolType: knownProtocols.get(apiId) });
  // One queue per operation, interleaved below: the service throttles each operation on its own, so
  // their reads must proceed side by side rather than one operation's backlog holding every slot.
  const apiReads: Array<() => Promise<void>> = [...apiIds].map((apiId) => () => counted(progress, readsOfApi(apiId), async (readDone) => {
    let protocolType = knownProtocols.get(apiId);
    let name = knownNames.get(apiId);
    if (!protocolType) {
      const api = await clients.gateway.getApi(apiId, { signal });
      readDone();
      if (!api) return;
      protocolType = api.protocolType;
      name = api.name;
    }
    try {
      const [routes, integrations] = await Promise.all([
        collect(clients.gateway.routes(apiId, { signal })).finally(readDone),
        collect(clients.gateway.integrations(apiId, { signal })).finally(readDone),
      ]);
      apis[apiId] = { apiId, name, protocolType, routes, integrations };
    } catch (error) {
      if (!isNotFound(error, "Api")) throw error;
    }
  }));
  const contactReads = needs.filter((need) => need.type === "contact").map((need) => () => counted(progress, 1, async () => {
    contacts[`${need.account}/${need.contactType}`] = (await clients.account.getAlternateContact({ ...accountField(need.account), AlternateContactType: need.contactType }, { signal })) ?? null;
  }));
  const regionReads = needs.filter((need) => need.type === "regions").map((need) => () => counted(progress, 1, async () => {
    const statuses: Record<string, Region["RegionOptStatus"]> = {};
    for await (const region of clients.account.listRegions(accountField(need.account), { signal })) statuses[region.RegionName] = region.RegionOptStatus;
    regions[need.account] = statuses;
  }));
  progress?.expectReads([...apiIds].reduce((sum, apiId) => sum + readsOfApi(apiId), 0) + contactReads.length + regionReads.length);
  const tasks = interleave([apiReads, contactReads, regionReads]).map((read) => limit(read));
  await Promise.all(tasks);
  return { apis: sortKeys(apis), apiIdsByName, contacts: sortKeys(contacts), regions: sortKeys(regions) };
}

/**
 * The reads readLive makes for one need, as progress counts them: an API's two listings, and a
 * GetApi first when its protocol is not known (an API named by `{name}` also needs the listing of
 * APIs, counted apart); one get per contact; one listing per account's Regions.
 */
export function readsOfNeed(need: LiveNeed): number {
  if (need.type !== "api") return 1;
  return need.protocolType ? 2 : 3;
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
  for (let i = 0; out.length < lists.reduce((sum, list) => sum + list.length, 0); i += 1) {
    for (const list of lists) if (i < list.length) out.push(list[i]!);
  }
  return out;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
