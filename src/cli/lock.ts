import { readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { parseJsonWithinDepth } from "../input-limits/nesting.js";
import { CliError } from "./cli-error.js";
import { describeFileError } from "../contract/file-errors.js";

/**
 * The advisory lock of `apply --lock FILE` (docs/manual/plan-and-apply.md): held for a whole apply, so
 * that runs that share FILE (one machine, or a shared file system) take turns. The lock itself is
 * the directory `FILE.lock`, made by proper-lockfile (mkdir is atomic, also on network file
 * systems) and refreshed every `staleMs / 2`; a lock not refreshed for `staleMs` (its holder was
 * killed, or its machine lost) is stale and taken over. FILE records the holder (pid, host,
 * command, since when), for the message of whoever waits; it is removed before the lock is released.
 */

/** Who holds a lock, as recorded in FILE. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly command: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
}

export interface LockOptions {
  /** How long to wait for the lock before giving up. 0: do not wait. */
  readonly timeoutMs: number;
  /** What the holder runs, for the message of whoever waits (never holds a secret: the CLI's arguments). */
  readonly command: string;
  /** A lock not refreshed for this long is taken over. @default 10000 */
  readonly staleMs?: number;
  /** Told once when the lock is held by someone else and this run starts waiting. */
  readonly onWait?: (holder: string) => void;
  /** How often to try again while waiting: a random delay in this range. @default [100, 300] */
  readonly retryDelayMs?: readonly [number, number];
  /** Stops waiting when aborted (a long-running process asked to stop): throws its reason. */
  readonly signal?: AbortSignal | undefined;
}

/** The lock is held by another run and was not released within the wait: the message names the holder. */
export class LockHeldError extends CliError {
  /** Who holds it (LockHolder's description). */
  readonly holder: string;
  constructor(message: string, holder: string) {
    super(message);
    this.holder = holder;
  }
}

/** A lock this process holds. */
export interface HeldLock {
  /** Aborted if the lock is lost while held (its refresh failed and another run took it over): stop writing. */
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

const DEFAULT_STALE_MS = 10_000;

/** Takes the lock FILE, waiting up to `timeoutMs`; throws a CliError naming the holder when it cannot. */
export async function acquireLock(file: string, options: LockOptions): Promise<HeldLock> {
  const path = resolve(file);
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  await refuseForeignFile(file, path);
  const lost = new AbortController();
  const deadline = Date.now() + options.timeoutMs;
  let waiting = false;
  for (;;) {
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(path, {
        realpath: false,
        stale: staleMs,
        update: staleMs / 2,
        retries: 0,
        onCompromised: (error) => lost.abort(new CliError(`the lock ${file} was lost while held (${error.message}): another run may have taken it over`)),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") throw new CliError(`--lock ${file}: the directory ${dirname(path)} does not exist`);
      if (code !== "ELOCKED") throw new CliError(`--lock ${file}: cannot take the lock: ${(error as Error).message}`);
      if (Date.now() >= deadline) {
        const holder = await describeHolder(path, staleMs);
        throw new LockHeldError(`could not take the lock ${file} within ${Math.round(options.timeoutMs / 1000)} s (--lock-timeout): `
          + `it is held by ${holder}. Nothing was applied; try again once it is released`, holder);
      }
      if (options.signal?.aborted) throw options.signal.reason;
      if (!waiting) {
        waiting = true;
        options.onWait?.(await describeHolder(path, staleMs));
      }
      const [least, most] = options.retryDelayMs ?? [100, 300];
      await new Promise((done) => setTimeout(done, Math.min(Math.max(0, deadline - Date.now()), least + Math.random() * (most - least))));
      continue;
    }
    const holder: LockHolder = { pid: process.pid, host: hostname(), command: options.command, since: new Date().toISOString() };
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(holder, null, 2)}\n`);
    await rename(temporary, path);
    return {
      signal: lost.signal,
      async release() {
        // the record goes first: the next holder writes its own once the lock is released
        await unlink(path).catch(() => undefined);
        if (!lost.signal.aborted) await release();
      },
    };
  }
}

/** Runs `task` holding the lock FILE (when given), with the lock's signal; releases it however `task` ends. */
export async function withLock<T>(file: string | undefined, options: LockOptions, task: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (file === undefined) return task(undefined);
  const held = await acquireLock(file, options);
  try {
    const result = await task(held.signal);
    if (held.signal.aborted) throw held.signal.reason;
    return result;
  } catch (error) {
    // the task's own failure (requests aborted) is a consequence: the lost lock is the cause
    throw held.signal.aborted ? held.signal.reason : error;
  } finally {
    await held.release();
  }
}

/** A file at FILE that is not a holder record is the user's, not a lock: never overwrite it. */
async function refuseForeignFile(file: string, path: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new CliError(`--lock ${file}: cannot read it: ${describeFileError(error)}`);
  }
  if (readHolder(text) === undefined) {
    throw new CliError(`--lock ${file} is a file that is not a converge lock record (converge writes its holder there, and removes it): `
      + `pass a path of its own, e.g. ${file}.converge-lock`);
  }
}

function readHolder(text: string): LockHolder | undefined {
  try {
    const value = parseJsonWithinDepth(text) as Partial<LockHolder>;
    return typeof value.pid === "number" && typeof value.host === "string"
      && typeof value.command === "string" && typeof value.since === "string"
      ? value as LockHolder
      : undefined;
  } catch {
    return undefined;
  }
}

/** The holder of a lock, for messages: from its record, with whether it still runs (same host) and when it last refreshed the lock. */
async function describeHolder(path: string, staleMs: number): Promise<string> {
  const holder = readHolder(await readFile(path, "utf8").catch(() => ""));
  const refreshed = await stat(`${path}.lock`).then((info) => Math.max(0, Math.round((Date.now() - info.mtimeMs) / 1000)), () => undefined);
  const freshness = refreshed === undefined ? "" : `, last refreshed ${refreshed} s ago`;
  if (!holder) return `a process that left no record in ${path}${freshness}`;
  const gone = holder.host === hostname() && !isRunning(holder.pid)
    ? `; that process is no longer running: the lock is taken over once ${Math.round(staleMs / 1000)} s pass without a refresh`
    : "";
  return `${JSON.stringify(holder.command)} (pid ${holder.pid} on ${holder.host}, since ${holder.since}${freshness}${gone})`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
