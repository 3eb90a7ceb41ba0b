import pLimit from "p-limit";
import { collect, isNotFound, type Clients } from "../clients/index.js";
import type { ProtocolType } from "../spec/gateway.js";
import type { AlternateContact, Region } from "../spec/account.js";
import { SELF } from "../desired/read-key.js";
import type { LiveApi, LiveNeed, LiveState } from "./model.js";

export interface ReadOptions {
  /** Reads in flight at once. @default 16 */
  readonly parallelism?: number;
  readonly signal?: AbortSignal | undefined;
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
  const apiNeeds = needs.filter((need): need is Extract<LiveNeed, { type: "api" }> => need.type === "api");

  const apiIdsByName: Record<string, string[]> = {};
  const knownProtocols = new Map<string, ProtocolType>();
  const knownNames = new Map<string, string>();
  if (apiNeeds.some((need) => typeof need.ref !== "string")) {
    for await (const api of clients.gateway.apis({ signal })) {
      (apiIdsByName[api.name] ??= []).push(api.apiId);
      knownProtocols.set(api.apiId, api.protocolType);
      knownNames.set(api.apiId, api.name);
    }
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
  // One queue per operation, interleaved below: the service throttles each operation on its own, so
  // their reads must proceed side by side rather than one operation's backlog holding every slot.
  const apiReads: Array<() => Promise<void>> = [...apiIds].map((apiId) => async () => {
    let protocolType = knownProtocols.get(apiId);
    let name = knownNames.get(apiId);
    if (!protocolType) {
      const api = await clients.gateway.getApi(apiId, { signal });
      if (!api) return;
      protocolType = api.protocolType;
      name = api.name;
    }
    try {
      const [routes, integrations] = await Promise.all([
        collect(clients.gateway.routes(apiId, { signal })),
        collect(clients.gateway.integrations(apiId, { signal })),
      ]);
      apis[apiId] = { apiId, name, protocolType, routes, integrations };
    } catch (error) {
      if (!isNotFound(error, "Api")) throw error;
    }
  });
  const contactReads = needs.filter((need) => need.type === "contact").map((need) => async () => {
    contacts[`${need.account}/${need.contactType}`] = (await clients.account.getAlternateContact({ ...accountField(need.account), AlternateContactType: need.contactType }, { signal })) ?? null;
  });
  const regionReads = needs.filter((need) => need.type === "regions").map((need) => async () => {
    const statuses: Record<string, Region["RegionOptStatus"]> = {};
    for await (const region of clients.account.listRegions(accountField(need.account), { signal })) statuses[region.RegionName] = region.RegionOptStatus;
    regions[need.account] = statuses;
  });
  const tasks = interleave([apiReads, contactReads, regionReads]).map((read) => limit(read));
  await Promise.all(tasks);
  return { apis: sortKeys(apis), apiIdsByName, contacts: sortKeys(contacts), regions: sortKeys(regions) };
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
