/**
 * Live keys: one per live resource, whatever source names it, so that sources can be compared
 * (drift's conflicts, coverage, and pruning that leaves alone what another source manages): the
 * collection it is listed in (`routes` and `integrations`, the collections of ClaimCollection;
 * `contacts`, `regions`, `apis`), the API or account it is in, and its ID there. The caller's own
 * account is `self` (src/desired/read-key.ts): a source that names it by its ID names another key.
 */
export interface LiveKey {
  readonly collection: string;
  /** The API (an apiId) or the account (`self` or an account ID) the resource is in; an API is in itself. */
  readonly scope: string;
  readonly id: string;
}

/** The key of a live resource: its collection, the API or account it is in, and its ID within it. */
export function liveKeyOf(collection: string, scope: string, id: string): LiveKey {
  return { collection, scope, id };
}

/** A key's one text form, `routes/<apiId>/<routeId>` (`apis/<apiId>/<apiId>`): for people, and what collections of keys compare. */
export function liveKeyText(key: LiveKey): string {
  return `${key.collection}/${key.scope}/${key.id}`;
}

const APIS = "apis";

/** The key of an API itself: in itself, `apis/<apiId>/<apiId>`. */
export function apiKeyOf(apiId: string): LiveKey {
  return liveKeyOf(APIS, apiId, apiId);
}

/** Whether a key is an API's own: documents of its children name it too, so it is declared whether or not they exist. */
export function isApiKey(key: LiveKey): boolean {
  return key.collection === APIS;
}

/** Values by live key, keys compared by value (their text form), in insertion order. */
export class LiveKeyMap<V> implements Iterable<readonly [LiveKey, V]> {
  readonly #entries = new Map<string, readonly [LiveKey, V]>();

  constructor(entries: Iterable<readonly [LiveKey, V]> = []) {
    for (const [key, value] of entries) this.set(key, value);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: LiveKey): V | undefined {
    return this.#entries.get(liveKeyText(key))?.[1];
  }

  has(key: LiveKey): boolean {
    return this.#entries.has(liveKeyText(key));
  }

  set(key: LiveKey, value: V): this {
    this.#entries.set(liveKeyText(key), [key, value]);
    return this;
  }

  keys(): LiveKey[] {
    return [...this.#entries.values()].map(([key]) => key);
  }

  values(): V[] {
    return [...this.#entries.values()].map(([, value]) => value);
  }

  [Symbol.iterator](): Iterator<readonly [LiveKey, V]> {
    return this.#entries.values();
  }
}

/** A set of live keys compared by value (their text form), in insertion order. */
export class LiveKeySet implements Iterable<LiveKey> {
  readonly #keys = new LiveKeyMap<true>();

  constructor(keys: Iterable<LiveKey> = []) {
    for (const key of keys) this.add(key);
  }

  get size(): number {
    return this.#keys.size;
  }

  has(key: LiveKey): boolean {
    return this.#keys.has(key);
  }

  add(key: LiveKey): this {
    this.#keys.set(key, true);
    return this;
  }

  [Symbol.iterator](): Iterator<LiveKey> {
    return this.#keys.keys()[Symbol.iterator]();
  }
}

/** What reads a set of live keys (PlanOptions.managedElsewhere). */
export type ReadonlyLiveKeySet = Pick<LiveKeySet, "has" | "size" | typeof Symbol.iterator>;
