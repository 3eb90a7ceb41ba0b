import { readFileSync } from "node:fs";
import { access, constants, mkdir, open, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { z } from "zod";
import {
  StateFileError,
  encodeTuples,
  parseStateFile,
  recordLine,
  snapshotLine,
  type Mutation,
  type ParsedStateFile,
  type ValueSchemas,
} from "./state-file.js";
import { NODE_STATE_FILE_SYSTEM, type AppendFile, type StateFileSystem } from "./state-file-system.js";

export type { Mutation } from "./state-file.js";

/** What a piece of service state exposes so that the store can persist and restore it. */
export interface Collection {
  /** What a stored value looks like; the values of a state file are checked against it on start. */
  readonly schema: z.ZodType;
  /** Sets (`value` not null) or removes (`null`) one entry; must be idempotent. */
  restore(key: string, value: unknown): void;
  /** Every entry, in an order that `restore` reproduces. */
  entries(): Iterable<readonly [string, unknown]>;
  /** Removes every entry (before a state file is replayed). */
  clear(): void;
}

export interface AttachOptions {
  /** The file layer of the journal's writes while serving. @default node:fs */
  readonly fileSystem?: StateFileSystem;
  /** Told what start-up did to the file (a torn last record dropped, an older format converted) and about failed writes. */
  readonly notice?: (message: string) => void;
  /** Changes after which the journal is rewritten as one snapshot. @default 100000 */
  readonly compactAfterMutations?: number;
}

/**
 * A change that could not be made durable (the append or the sync of the state file failed): it was
 * not applied, and neither were the changes queued behind it. Answered as a retryable 500.
 */
export class StateWriteError extends Error {
  readonly code = "CONVERGE_STATE_WRITE";
  /** The file system's error code (`ENOSPC`, `EIO`, …) when there is one. */
  readonly reason: string;

  constructor(message: string, reason: string) {
    super(message);
    this.name = "StateWriteError";
    this.reason = reason;
  }
}

/** Where the state a request read stands; see {@link Store.whenDurable}. */
export interface StateMark {
  readonly ticket: number;
  readonly reverts: number;
}

const IN_MEMORY: StateMark = { ticket: 0, reverts: 0 };
const COMPACT_AFTER_MUTATIONS = 100_000;

/**
 * Service state persistence. In memory by default. With a state file, a commit is applied to memory
 * at once (so that the next request's checks see it) and appended to the journal; its promise
 * resolves once the record is synced. If the append or the sync fails, memory is brought back to
 * what the file holds (the failed commit and every commit queued after it are undone, and rejected
 * with {@link StateWriteError}). Readers use {@link mark} and {@link whenDurable} to answer only
 * from state that is on disk. Concurrent commits share one record and one sync.
 */
export class Store {
  readonly #collections = new Map<string, Collection>();
  #journal: Journal | undefined;
  #path = "";
  /** Commits applied to memory (tickets), and how many of them are durable. */
  #applied = 0;
  #durable = 0;
  /** How many times memory was brought back to the file after a failed write. */
  #reverts = 0;
  #waiters: Array<{ readonly ticket: number; readonly resolve: (durable: boolean) => void }> = [];
  #failure: StateWriteError | undefined;
  #notice: (message: string) => void = () => undefined;

  register(name: string, collection: Collection): void {
    if (this.#collections.has(name)) throw new Error(`collection ${name} is registered twice`);
    this.#collections.set(name, collection);
  }

  /**
   * Makes the store durable in `path`. An existing file replaces the in-memory state; the world's
   * seed data is used (and written to the file) only when the file does not exist or is empty.
   * Anything else that cannot be read throws a {@link StateFileError} and leaves the file as it is.
   */
  async attach(path: string, options: AttachOptions = {}): Promise<void> {
    const notice = options.notice ?? (() => undefined);
    this.#notice = notice;
    const bytes = await readStateFile(path);
    const parsed = bytes === undefined ? undefined : parseStateFile(path, bytes, this.schemas());
    if (parsed) this.#load(path, parsed);
    this.#path = path;
    try {
      this.#journal = await Journal.open(path, parsed, this.#owner(), {
        fs: options.fileSystem ?? NODE_STATE_FILE_SYSTEM,
        notice,
        compactAfter: options.compactAfterMutations ?? COMPACT_AFTER_MUTATIONS,
      });
    } catch (error) {
      throw new StateFileError(path, `cannot be ${bytes === undefined ? "created" : "prepared"}: ${(error as Error).message}.`,
        "check that its directory exists or can be created, and is writable");
    }
  }

  /**
   * Applies mutations to memory at once; resolves when they are on disk (at once without a state
   * file); rejects with {@link StateWriteError} when they cannot be, after undoing them.
   */
  commit(mutations: ReadonlyArray<Mutation>): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    for (const mutation of mutations) this.#restore(mutation);
    if (!this.#journal || mutations.length === 0) return Promise.resolve();
    this.#applied += 1;
    return this.#journal.append(encodeTuples(mutations), mutations.length, this.#applied);
  }

  /**
   * Replaces the whole state with `mutations` (a snapshot: a reset, a restored checkpoint); with a
   * state file, the file is rewritten as that one snapshot. Resolves once it is on disk; rejects
   * with {@link StateWriteError} when it cannot be, after bringing memory back to the file (nothing
   * of the replacement stays). The caller makes sure no other commit is in flight (src/service/world-gate.ts).
   */
  replace(mutations: ReadonlyArray<Mutation>): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    this.#replaceMemory(mutations);
    if (!this.#journal) return Promise.resolve();
    this.#applied += 1;
    return this.#journal.rewrite(this.#applied);
  }

  /** Every entry of every collection, in an order that replays (a snapshot of memory). */
  snapshot(): Mutation[] {
    const out: Mutation[] = [];
    for (const [name, collection] of this.#collections) {
      for (const [key, value] of collection.entries()) out.push({ collection: name, key, value });
    }
    return out;
  }

  /** What each collection's stored values look like (a state file is checked against them). */
  schemas(): ValueSchemas {
    return new Map([...this.#collections].map(([name, collection]) => [name, collection.schema]));
  }

  /** The state as of now: every commit applied so far. */
  mark(): StateMark {
    return this.#journal ? { ticket: this.#applied, reverts: this.#reverts } : IN_MEMORY;
  }

  /**
   * Whether the state at `mark` is durable: `undefined` when it already is, else a promise of
   * `true` once it is, or `false` when part of it was undone by a failed write.
   */
  whenDurable(mark: StateMark): Promise<boolean> | undefined {
    if (mark.reverts !== this.#reverts) return Promise.resolve(false);
    if (mark.ticket <= this.#durable) return undefined;
    return new Promise((resolve) => this.#waiters.push({ ticket: mark.ticket, resolve }));
  }

  /** Set when memory could not be brought back in line with the file after a failed write: nothing can be answered. */
  get failure(): StateWriteError | undefined {
    return this.#failure;
  }

  async close(): Promise<void> {
    await this.#journal?.close();
    this.#journal = undefined;
  }

  /** Replaces memory with the state a file holds; a change that does not replay is a {@link StateFileError}. */
  #load(path: string, parsed: ParsedStateFile): void {
    for (const collection of this.#collections.values()) collection.clear();
    for (const chunk of parsed.chunks) {
      for (const mutation of chunk.mutations) {
        try {
          this.#restore(mutation);
        } catch (error) {
          throw new StateFileError(path, `cannot be used: line ${chunk.line} (byte ${chunk.offset}) ${(error as Error).message}; `
            + `expected changes that replay in order (an entry after what it belongs to).`);
        }
      }
    }
  }

  #restore(mutation: Mutation): void {
    const collection = this.#collections.get(mutation.collection);
    if (!collection) throw new Error(`names unknown collection ${JSON.stringify(mutation.collection)}`);
    collection.restore(mutation.key, mutation.value);
  }

  #replaceMemory(mutations: ReadonlyArray<Mutation>): void {
    for (const collection of this.#collections.values()) collection.clear();
    for (const mutation of mutations) this.#restore(mutation);
  }

  #owner(): JournalOwner {
    return {
      snapshot: () => this.snapshot(),
      durable: (ticket) => {
        this.#durable = ticket;
        if (this.#waiters.length === 0) return;
        const waiting = this.#waiters;
        this.#waiters = [];
        for (const waiter of waiting) {
          if (waiter.ticket <= ticket) waiter.resolve(true);
          else this.#waiters.push(waiter);
        }
      },
      revert: (durableBytes) => {
        this.#reverts += 1;
        this.#applied = this.#durable;
        let undone = true;
        try {
          this.#load(this.#path, parseStateFile(this.#path, durableBytes(), undefined));
        } catch (error) {
          this.#notice(`state file ${this.#path} could not be read back after a failed write, so memory may hold changes that are not on disk; `
            + `every request is answered 500 until the service is restarted: ${(error as Error).message}`);
          this.#failure = new StateWriteError(
            "the service could not read its state file back after a failed write; "
              + "it answers nothing until it is restarted (every acknowledged write is on disk)",
            (error as NodeJS.ErrnoException).code ?? "EIO",
          );
          undone = false;
        }
        const waiting = this.#waiters;
        this.#waiters = [];
        for (const waiter of waiting) waiter.resolve(false);
        return undone;
      },
    };
  }
}

/**
 * The state file's bytes; `undefined` when it does not exist or is empty (start from the seed).
 * A directory, a file that cannot be written, or one that cannot be read is refused.
 */
async function readStateFile(path: string): Promise<Buffer | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StateFileError(path, `cannot be used: ${(error as Error).message}.`);
  }
  if (info.isDirectory()) {
    throw new StateFileError(path, "is a directory; expected a state file (a regular file, or a path where none exists yet).",
      `nothing was changed; name a file with --state-file (e.g. ${path}/state.jsonl), or move the directory aside`);
  }
  if (!info.isFile()) throw new StateFileError(path, "is not a regular file; expected a state file (a regular file, or a path where none exists yet).");
  const readOnly = (info.mode & 0o222) === 0
    ? `is read-only (mode ${(info.mode & 0o777).toString(8).padStart(4, "0")})`
    : await access(path, constants.W_OK).then(() => undefined, (error: NodeJS.ErrnoException) => `cannot be written (${error.code ?? error.message})`);
  if (readOnly) {
    throw new StateFileError(path, `${readOnly}; expected a writable file: every write is appended to it and synced before it is answered, `
      + `so the service refuses to start rather than accept writes it could not keep.`,
      `the file was left unchanged; make it writable (chmod u+w ${path}) to serve from it, or copy it and start with --state-file on the copy`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new StateFileError(path, `cannot be read: ${(error as Error).message}.`);
  }
  return bytes.length === 0 ? undefined : bytes;
}

interface JournalOwner {
  /** Every entry of memory. */
  snapshot(): Mutation[];
  /** Every commit up to `ticket` is on disk. */
  durable(ticket: number): void;
  /** A write failed: make memory what the file holds (`durableBytes`), undoing every commit not yet durable; false when that failed. */
  revert(durableBytes: () => Buffer): boolean;
}

interface Entry {
  readonly ticket: number;
  readonly tuples: string;
  readonly count: number;
  /** The whole state was replaced: the file is rewritten as one snapshot of memory. */
  readonly rewrite: boolean;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** How a journal writes, tells and compacts. */
interface JournalSettings {
  readonly fs: StateFileSystem;
  readonly notice: (message: string) => void;
  readonly compactAfter: number;
}

/**
 * Append-only journal with group commit (the commits queued during one sync become the next
 * record) and periodic compaction into a snapshot.
 */
class Journal {
  readonly #path: string;
  readonly #owner: JournalOwner;
  readonly #fs: StateFileSystem;
  readonly #notice: (message: string) => void;
  readonly #compactAfter: number;
  #file: AppendFile | undefined;
  #queue: Entry[] = [];
  #flushing: Promise<void> | undefined;
  /** The last record's sequence number, and the file's length up to its end. */
  #seq: number;
  #length: number;
  #sinceSnapshot = 0;
  /** Bytes after `#length` may hold part of a failed record: cut them off before the next append. */
  #damaged = false;

  private constructor(path: string, owner: JournalOwner, settings: JournalSettings, seq: number, length: number) {
    this.#path = path;
    this.#owner = owner;
    this.#fs = settings.fs;
    this.#notice = settings.notice;
    this.#compactAfter = settings.compactAfter;
    this.#seq = seq;
    this.#length = length;
  }

  /** Creates the file (seed), converts an older format, or cuts a torn last record off; then opens it. */
  static async open(path: string, parsed: ParsedStateFile | undefined, owner: JournalOwner, settings: JournalSettings): Promise<Journal> {
    const notice = settings.notice;
    let length: number;
    const seq = parsed?.seq ?? 0;
    if (!parsed || parsed.version !== 2) {
      await mkdir(dirname(path), { recursive: true });
      const text = snapshotLine(seq, owner.snapshot());
      await NODE_STATE_FILE_SYSTEM.replace(path, text);
      length = Buffer.byteLength(text);
      if (parsed?.tornTail) notice(tornTailNotice(path, parsed));
      if (parsed) notice(`state file ${path}: converted from format ${parsed.version} to format 2 (every record checksummed and numbered)`);
    } else {
      length = parsed.validLength;
      if (parsed.tornTail) {
        const handle = await open(path, "r+");
        try {
          await handle.truncate(length);
          await handle.sync();
        } finally {
          await handle.close();
        }
        notice(tornTailNotice(path, parsed));
      }
    }
    const journal = new Journal(path, owner, settings, seq, length);
    journal.#file = await settings.fs.openAppend(path);
    return journal;
  }

  append(tuples: string, count: number, ticket: number): Promise<void> {
    return this.#enqueue(tuples, count, ticket, false);
  }

  /** Rewrites the file as one snapshot of memory (after the state was replaced), in turn with the appends queued before it. */
  rewrite(ticket: number): Promise<void> {
    return this.#enqueue("", 0, ticket, true);
  }

  #enqueue(tuples: string, count: number, ticket: number, rewrite: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ ticket, tuples, count, rewrite, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  /**
   * Writes the queue out, record by record, until it is empty. `#flushing` is cleared in the same
   * step that finds the queue empty, so that a commit made by a caller resumed by the last record
   * starts the next flush instead of waiting on this one.
   */
  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        try {
          await this.#prepare();
        } catch (error) {
          await this.#fail([], error);
          continue;
        }
        const batch = this.#queue;
        this.#queue = [];
        const seq = this.#seq + 1;
        const count = batch.reduce((sum, entry) => sum + entry.count, 0);
        try {
          if (this.#sinceSnapshot + count >= this.#compactAfter || batch.some((entry) => entry.rewrite)) {
            // memory is exactly the file plus this batch: the snapshot stands for both
            const text = snapshotLine(seq, this.#owner.snapshot());
            await this.#fs.replace(this.#path, text);
            await this.#file?.close().catch(() => undefined);
            this.#file = undefined;
            this.#length = Buffer.byteLength(text);
            this.#sinceSnapshot = 0;
          } else {
            const bytes = Buffer.from(recordLine(seq, batch.map((entry) => entry.tuples)));
            this.#damaged = true;
            await this.#file!.append(bytes);
            await this.#file!.sync();
            this.#damaged = false;
            this.#length += bytes.length;
            this.#sinceSnapshot += count;
          }
        } catch (error) {
          await this.#fail(batch, error);
          continue;
        }
        this.#seq = seq;
        this.#owner.durable(batch[batch.length - 1]!.ticket);
        for (const entry of batch) entry.resolve();
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Opens the file if a compaction closed it, and cuts off what a failed append left behind. */
  async #prepare(): Promise<void> {
    this.#file ??= await this.#fs.openAppend(this.#path);
    if (this.#damaged) {
      await this.#file.truncate(this.#length);
      await this.#file.sync();
      this.#damaged = false;
    }
  }

  /**
   * A write failed: cut the partial record off first (so that a crash now cannot bring back a write
   * answered 500), then undo in memory every commit not on disk, and reject them all.
   */
  async #fail(batch: ReadonlyArray<Entry>, error: unknown): Promise<void> {
    try {
      await this.#prepare();
    } catch {
      // still damaged: cut off before the next append, which fails if that fails again
    }
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    const undone = this.#owner.revert(() => readFileSync(this.#path).subarray(0, this.#length));
    const reason = (error as NodeJS.ErrnoException).code ?? "EIO";
    const message = (error as Error).message ?? String(error);
    this.#notice(`state file ${this.#path}: a write failed (${message}); `
      + `${failed.length} change${failed.length === 1 ? " was" : "s were"} answered 500${undone ? " and undone" : ""}`
      + (this.#damaged
        ? "; the partial record could not be cut off yet (retried before the next write)"
        : `; the file ends at byte ${this.#length}, as before`));
    const failure = new StateWriteError(`the state file could not be written (${reason}): the change was not applied`, reason);
    for (const entry of failed) entry.reject(failure);
  }

  async close(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    await this.#file?.close();
    this.#file = undefined;
  }
}

function tornTailNotice(path: string, parsed: ParsedStateFile): string {
  const torn = parsed.tornTail!;
  return `state file ${path}: dropped a torn last record at line ${torn.line} (byte ${torn.offset}, ${torn.bytes} bytes; it ${torn.reason}): `
    + `a write cut off by a crash, never acknowledged`;
}
