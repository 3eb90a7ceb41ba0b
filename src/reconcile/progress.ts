/**
 * How far a run has come, for a progress display: the phase, and reads and writes counted against
 * their totals. The reconciler counts; whoever shows it (the CLI, on a terminal) listens. A read is
 * one get or one listing (all of its pages); a write is one planned action.
 */

export type ProgressPhase = "listing APIs" | "reading" | "writing" | "verifying";

export interface ProgressCount {
  readonly done: number;
  readonly total: number;
}

export interface ProgressSnapshot {
  readonly phase: ProgressPhase;
  /** Reads of the current pass over live state (`reading`, then again `verifying`). */
  readonly reads: ProgressCount;
  /** Writes of the apply (zero totals when nothing is written). */
  readonly writes: ProgressCount;
  /** What was last started, e.g. `creating Route/a1b2c3d4e5/GET /orders`. */
  readonly activity: string | undefined;
}

/** Told that the counts changed; reads {@link Progress.snapshot} when it draws. */
export type ProgressListener = () => void;

/**
 * The counters of one run. Every change calls the listener, synchronously: a listener that draws
 * should throttle itself (reads may finish thousands of times a second, so no snapshot is made per change).
 */
export class Progress {
  readonly #listener: ProgressListener;
  #phase: ProgressPhase = "reading";
  #reads = { done: 0, total: 0 };
  #writes = { done: 0, total: 0 };
  #activity: string | undefined;

  constructor(listener: ProgressListener) {
    this.#listener = listener;
  }

  /** Enters a phase; `reading` and `verifying` start a new pass over live state, counted from zero. */
  phase(phase: ProgressPhase): void {
    this.#phase = phase;
    if (phase === "reading" || phase === "verifying") this.#reads = { done: 0, total: 0 };
    this.#activity = undefined;
    this.#emit();
  }

  /** `count` more reads are coming in this pass. */
  expectReads(count: number): void {
    this.#reads.total += count;
    this.#emit();
  }

  /** One read finished, answered or failed. */
  readDone(): void {
    this.#reads.done += 1;
    this.#emit();
  }

  /** `count` more writes are coming. */
  expectWrites(count: number): void {
    this.#writes.total += count;
    this.#emit();
  }

  /** A write starts (`activity` says which). */
  writeStarted(activity: string): void {
    this.#activity = activity;
    this.#emit();
  }

  /** One write finished, done or failed. */
  writeDone(): void {
    this.#writes.done += 1;
    this.#emit();
  }

  get snapshot(): ProgressSnapshot {
    return { phase: this.#phase, reads: { ...this.#reads }, writes: { ...this.#writes }, activity: this.#activity };
  }

  #emit(): void {
    this.#listener();
  }
}

/** `writing · reads 880/880 · writes 3/15 · creating Route/…`: the phase, the counts that have a total, what was last started. */
export function describeProgress(snapshot: ProgressSnapshot): string {
  const counts = [
    ...(snapshot.reads.total > 0 || snapshot.phase === "reading" || snapshot.phase === "verifying"
      ? [`reads ${snapshot.reads.done}/${snapshot.reads.total}`]
      : []),
    ...(snapshot.writes.total > 0 ? [`writes ${snapshot.writes.done}/${snapshot.writes.total}`] : []),
  ];
  return [snapshot.phase, ...counts, ...(snapshot.activity ? [snapshot.activity] : [])].join(" · ");
}
