import type { Collection } from "./store.js";

/** A Map that the store can persist: insertion order is kept across snapshots and replays. */
export class MapCollection<V> implements Collection {
  readonly map = new Map<string, V>();

  restore(key: string, value: unknown): void {
    if (value === null) this.map.delete(key);
    else this.map.set(key, value as V);
  }

  entries(): Iterable<readonly [string, unknown]> {
    return this.map.entries();
  }

  clear(): void {
    this.map.clear();
  }
}
