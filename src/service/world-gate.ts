/**
 * What makes a change of a whole world's state (a reset, a restored checkpoint) atomic with respect
 * to its requests: requests pass the gate in any number at once; a change closes it, waits until the
 * requests already in have finished, runs alone, and opens it again. A request never sees half a
 * change, and none that was in flight is cut short.
 */
export class WorldGate {
  #inside = 0;
  /** Resolves when the running (or queued) changes are done; set while the gate is closed. */
  #closed: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  /** Lets a request in: at once (`undefined`) while the gate is open, else once it opens again. */
  enter(): Promise<void> | undefined {
    if (this.#closed === undefined) {
      this.#inside += 1;
      return undefined;
    }
    return this.#closed.then(() => this.enter());
  }

  /** A request that entered is done. */
  leave(): void {
    this.#inside -= 1;
    if (this.#inside === 0) this.#drained?.();
  }

  /** Runs `change` alone: after the requests inside have left, before any waiting one enters. Changes run one at a time. */
  exclusive<T>(change: () => Promise<T> | T): Promise<T> {
    const previous = this.#closed ?? Promise.resolve();
    const run = previous.then(async () => {
      if (this.#inside > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      this.#drained = undefined;
      return change();
    });
    const done = run.then(() => undefined, () => undefined);
    this.#closed = done;
    void done.then(() => {
      if (this.#closed === done) this.#closed = undefined;
    });
    return run;
  }
}
