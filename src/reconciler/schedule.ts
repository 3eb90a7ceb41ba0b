/**
 * When the next cycle starts (docs/manual/continuous-reconcile.md, "When cycles run"): pure
 * functions of what the last cycle met, so that the loop's timing is tested without a clock.
 */

/** What the last cycle met that decides the wait after it. */
export interface CycleTiming {
  /** Reads or writes failed: back off, retrying sooner than the interval at first. */
  readonly failed: boolean;
  /** The endpoint answered 429: never come back sooner than the interval, nor than it asked. */
  readonly throttled: boolean;
  /** The longest wait a throttled answer asked for. */
  readonly retryAfterMs: number;
}

export interface ScheduleOptions {
  readonly intervalMs: number;
  readonly jitter: number;
  readonly retryMs: number;
}

/**
 * The wait before the next cycle, and the count of failures in a row after it. A cycle that failed
 * waits `retryMs × 2^(failures − 1)`, capped at the interval, drawn from its upper half (full
 * jitter would let a replica retry at once); a throttled cycle waits at least the interval and what
 * the endpoint asked; any other waits the interval, jittered. A cycle that did not fail forgets the
 * failures before it, so that a fault that clears costs no stale backoff.
 */
export function nextWait(timing: CycleTiming, failuresBefore: number, options: ScheduleOptions, random: () => number = Math.random): { waitMs: number; failures: number } {
  const interval = jittered(options.intervalMs, options.jitter, random);
  if (timing.throttled) {
    return { waitMs: Math.max(interval, timing.retryAfterMs), failures: timing.failed ? failuresBefore + 1 : 0 };
  }
  if (!timing.failed) return { waitMs: interval, failures: 0 };
  const failures = failuresBefore + 1;
  const ceiling = Math.min(options.intervalMs, options.retryMs * 2 ** Math.min(failures - 1, 30));
  return { waitMs: Math.round(ceiling / 2 + (random() * ceiling) / 2), failures };
}

/** The delay of the first cycle: spread over [0, interval × jitter] so that replicas started together do not read at once. */
export function firstWait(options: Pick<ScheduleOptions, "intervalMs" | "jitter">, random: () => number = Math.random): number {
  return Math.round(options.intervalMs * options.jitter * random());
}

function jittered(intervalMs: number, jitter: number, random: () => number): number {
  return Math.round(intervalMs * (1 - jitter + 2 * jitter * random()));
}
