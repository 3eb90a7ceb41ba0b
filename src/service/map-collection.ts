import type { z } from "zod";
import type { Collection } from "./store.js";

/** A Map that the store can persist: insertion order is kept across snapshots and replays. */
export class MapCollection<V> implements Collection {
  readonly map = new Map<string, V>();
  readonly schema: z.ZodType;

  /** `schema`: what a stored value looks like (checked when a state file is read). */
  constructor(schema: z.ZodType) {
    this.schema = schema;
  }

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
