/** A lock this process holds: aborted when it is lost (its refresh failed and another took it over). */
export interface HeldLock {
  readonly signal: AbortSignal;
  release(): Promise<void>;
}

/**
 * The locks of `--lock FILE` (docs/manual/continuous-reconcile.md, "Running several"), given by the
 * CLI (src/cli/lock.ts): the reconciler's own lock, held for as long as it reconciles, so that one
 * instance of those sharing FILE writes and the others stand by; and FILE itself, apply's lock, held
 * for each cycle, so that an apply with the same lock waits for the cycle (and a cycle for the apply).
 */
export interface LockProvider {
  /** Where the locks are, for messages. */
  readonly file: string;
  /** Takes the reconciler's lock if it is free now; else says who holds it. */
  tryLead(): Promise<{ readonly held: HeldLock } | { readonly holder: string }>;
  /** Takes apply's lock for one cycle, waiting while an apply holds it (until `signal` aborts). */
  forCycle(signal: AbortSignal): Promise<HeldLock>;
}
