import { open, rename, readFile, writeFile, mkdir, type FileHandle } from "node:fs/promises";
import { dirname, basename, join } from "node:path";

/** One change to one entry of a collection: a full new value, or `null` for removal. */
export interface Mutation {
  readonly collection: string;
  readonly key: string;
  readonly value: unknown;
}

/** What a piece of service state exposes so that the store can persist and restore it. */
export interface Collection {
  /** Sets (`value` not null) or removes (`null`) one entry; must be idempotent. */
  restore(key: string, value: unknown): void;
  /** Every entry, in an order that `restore` reproduces. */
  entries(): Iterable<readonly [string, unknown]>;
  /** Removes every entry (before a state file is replayed). */
  clear(): void;
}

const COMPACT_AFTER_MUTATIONS = 100_000;

/**
 * Service state persistence. In memory by default; with a state file, every commit is appended to a
 * journal and fsync'ed before the promise resolves, so a caller that answers only after `commit`
 * resolves never acknowledges a write that a crash can lose. Concurrent commits share one fsync.
 */
export class Store {
  readonly #collections = new Map<string, Collection>();
  #journal: Journal | undefined;

  register(name: string, collection: Collection): void {
    if (this.#collections.has(name)) throw new Error(`collection ${name} is registered twice`);
    this.#collections.set(name, collection);
  }

  /**
   * Makes the store durable in `path`. An existing file replaces the in-memory state (the world's
   * seed data is used only when the file does not exist yet, and is then written to it).
   */
  async attach(path: string): Promise<void> {
    const existing = await readJournalFile(path);
    if (existing) {
      for (const collection of this.#collections.values()) collection.clear();
      for (const record of existing.records) this.#restore(record);
    }
    this.#journal = await Journal.create(path, () => this.#snapshot(), existing?.validLength);
  }

  /** Applies mutations to memory at once; resolves when they are on disk (at once without a state file). */
  commit(mutations: ReadonlyArray<Mutation>): Promise<void> {
    for (const mutation of mutations) this.#restore(mutation);
    return this.#journal ? this.#journal.append(mutations) : Promise.resolve();
  }

  async close(): Promise<void> {
    await this.#journal?.close();
    this.#journal = undefined;
  }

  #restore(mutation: Mutation): void {
    const collection = this.#collections.get(mutation.collection);
    if (!collection) throw new Error(`state file names unknown collection ${JSON.stringify(mutation.collection)}`);
    collection.restore(mutation.key, mutation.value);
  }

  #snapshot(): Mutation[] {
    const out: Mutation[] = [];
    for (const [name, collection] of this.#collections) {
      for (const [key, value] of collection.entries()) out.push({ collection: name, key, value });
    }
    return out;
  }
}

interface JournalFile {
  readonly records: Mutation[];
  /** Bytes up to the end of the last complete line; a torn tail after it is dropped. */
  readonly validLength: number;
}

type Line = { readonly snapshot: Array<[string, string, unknown]> } | { readonly m: Array<[string, string, unknown]> };

async function readJournalFile(path: string): Promise<JournalFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const records: Mutation[] = [];
  let offset = 0;
  let validLength = 0;
  while (offset < text.length) {
    const end = text.indexOf("\n", offset);
    if (end === -1) break; // a torn final write: it was never acknowledged
    const raw = text.slice(offset, end);
    let line: Line;
    try {
      line = JSON.parse(raw) as Line;
    } catch {
      throw new Error(`state file ${path} is corrupt at byte ${Buffer.byteLength(text.slice(0, offset))}: refusing to start rather than lose state`);
    }
    const tuples = "snapshot" in line ? line.snapshot : line.m;
    for (const [collection, key, value] of tuples) records.push({ collection, key, value });
    offset = end + 1;
    validLength = Buffer.byteLength(text.slice(0, offset));
  }
  if (records.length === 0 && validLength === 0) return undefined;
  return { records, validLength };
}

function encode(kind: "snapshot" | "m", mutations: ReadonlyArray<Mutation>): string {
  return `${JSON.stringify({ [kind]: mutations.map((m) => [m.collection, m.key, m.value]) })}\n`;
}

interface Pending {
  readonly text: string;
  readonly count: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Append-only journal with group commit and periodic compaction into a snapshot. */
class Journal {
  readonly #path: string;
  readonly #snapshot: () => Mutation[];
  #file: FileHandle;
  #pending: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #sinceSnapshot = 0;

  private constructor(path: string, file: FileHandle, snapshot: () => Mutation[]) {
    this.#path = path;
    this.#file = file;
    this.#snapshot = snapshot;
  }

  static async create(path: string, snapshot: () => Mutation[], validLength: number | undefined): Promise<Journal> {
    await mkdir(dirname(path), { recursive: true });
    if (validLength === undefined) {
      await writeAtomically(path, encode("snapshot", snapshot()));
    } else {
      const handle = await open(path, "r+");
      await handle.truncate(validLength);
      await handle.sync();
      await handle.close();
    }
    return new Journal(path, await open(path, "a"), snapshot);
  }

  append(mutations: ReadonlyArray<Mutation>): Promise<void> {
    if (mutations.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#pending.push({ text: encode("m", mutations), count: mutations.length, resolve, reject });
      this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
    });
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.#file.write(batch.map((p) => p.text).join(""));
        await this.#file.datasync();
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
        continue;
      }
      this.#sinceSnapshot += batch.reduce((sum, p) => sum + p.count, 0);
      if (this.#sinceSnapshot >= COMPACT_AFTER_MUTATIONS) await this.#compact();
    }
  }

  /** Rewrites the file as one snapshot of memory (which already holds every journaled mutation). */
  async #compact(): Promise<void> {
    await writeAtomically(this.#path, encode("snapshot", this.#snapshot()));
    await this.#file.close();
    this.#file = await open(this.#path, "a");
    this.#sinceSnapshot = 0;
  }

  async close(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    await this.#file.close();
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await writeFile(temporary, text, { flush: true });
  await rename(temporary, path);
  const directory = await open(dirname(path), "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
