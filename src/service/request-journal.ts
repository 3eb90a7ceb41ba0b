import type { JournalEntry, JournalFault } from "../contract/control.js";

/** One request of either service as the journal keeps it (never its token). */
export interface JournalRecord {
  /** Epoch milliseconds when the request arrived. */
  readonly time: number;
  readonly world: string;
  readonly service: string;
  readonly operation: string;
  readonly write: boolean;
  readonly identity: string | undefined;
  readonly account: string | undefined;
  readonly status: number;
  readonly latencyMs: number;
  readonly fault: JournalFault | undefined;
}

/** What a reader of the journal narrows it to; every field given must match. */
export interface JournalFilter {
  readonly operation?: string | undefined;
  readonly account?: string | undefined;
  readonly status?: number | undefined;
  readonly world?: string | undefined;
  readonly identity?: string | undefined;
  /** Only the requests a fault shaped (`true`) or only the others (`false`). */
  readonly fault?: boolean | undefined;
  /** Only writes (`true`) or only reads (`false`). */
  readonly write?: boolean | undefined;
}

/** How many requests the journal holds by default (`converge serve --journal-size`). */
export const DEFAULT_JOURNAL_SIZE = 10_000;

/**
 * The request journal: a ring of the last `size` requests of every world, so that memory stays flat
 * however many requests arrive (a size of 0 turns it off). Holds identities' names, never tokens.
 */
export class RequestJournal {
  readonly size: number;
  readonly #ring: Array<JournalRecord | undefined>;
  #next = 0;
  #held = 0;
  #evicted = 0;

  constructor(size: number) {
    this.size = size;
    this.#ring = new Array<JournalRecord | undefined>(size);
  }

  get held(): number {
    return this.#held;
  }

  /** How many records were let go to make room since the journal was last cleared. */
  get evicted(): number {
    return this.#evicted;
  }

  add(record: JournalRecord): void {
    if (this.size === 0) return;
    if (this.#held === this.size) this.#evicted += 1;
    else this.#held += 1;
    this.#ring[this.#next] = record;
    this.#next = this.#next + 1 === this.size ? 0 : this.#next + 1;
  }

  /** The records held that match, oldest first. */
  records(filter: JournalFilter = {}): JournalRecord[] {
    const out: JournalRecord[] = [];
    const first = this.#held === this.size ? this.#next : 0;
    for (let i = 0; i < this.#held; i += 1) {
      const record = this.#ring[(first + i) % this.size]!;
      if (matches(record, filter)) out.push(record);
    }
    return out;
  }

  /** Removes the records that match (every record with no filter); answers how many. */
  clear(filter: JournalFilter = {}): number {
    const kept = this.records().filter((record) => !matches(record, filter));
    const removed = this.#held - kept.length;
    this.#ring.fill(undefined);
    kept.forEach((record, index) => (this.#ring[index] = record));
    this.#held = kept.length;
    this.#next = kept.length === this.size ? 0 : kept.length;
    if (kept.length === 0) this.#evicted = 0;
    return removed;
  }
}

/** A record as the control interface answers it. */
export function journalEntry(record: JournalRecord): JournalEntry {
  return {
    time: new Date(record.time).toISOString(),
    world: record.world,
    service: record.service,
    operation: record.operation,
    write: record.write,
    identity: record.identity ?? null,
    account: record.account ?? null,
    status: record.status,
    latencyMs: record.latencyMs,
    fault: record.fault ?? null,
  };
}

function matches(record: JournalRecord, filter: JournalFilter): boolean {
  return (filter.operation === undefined || record.operation === filter.operation)
    && (filter.account === undefined || record.account === filter.account)
    && (filter.status === undefined || record.status === filter.status)
    && (filter.world === undefined || record.world === filter.world)
    && (filter.identity === undefined || record.identity === filter.identity)
    && (filter.fault === undefined || (record.fault !== undefined) === filter.fault)
    && (filter.write === undefined || record.write === filter.write);
}
