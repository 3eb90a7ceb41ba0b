import type { ReconcilePolicy } from "../desired/schema.js";
import type { ShardSpec } from "../reconcile/drift-report.js";

/** How the continuous reconciler runs (docs/manual/continuous-reconcile.md); the CLI's flags fill it. */
export interface ReconcilerOptions {
  /** Time between the starts of two cycles. */
  readonly intervalMs: number;
  /**
   * Each wait is the interval times a factor drawn from [1 − jitter, 1 + jitter], and the first
   * cycle starts after a delay drawn from [0, interval × jitter]: replicas started together
   * spread out. 0 turns both off. @default 0.1
   */
  readonly jitter: number;
  /** `correct` writes what differs (as apply does); `observe` never writes. A document's own `policy: observe` also holds. */
  readonly policy: ReconcilePolicy;
  /** A cycle that would make more writes than this makes none (`--max-changes`). @default no budget */
  readonly maxChanges?: number | undefined;
  /** Accept a desired set less than half the size of the last good one (`--allow-shrink`). */
  readonly allowShrink: boolean;
  /** A resource corrected `corrections` times within `cycles` cycles is fighting: it is no longer corrected. */
  readonly fight: { readonly corrections: number; readonly cycles: number };
  /** The first wait after a failed cycle; each further failure doubles it, up to the interval. @default 5000 */
  readonly retryMs: number;
  /** A cycle that runs longer is stopped (its reads and writes aborted) and counted as failed. */
  readonly cycleTimeoutMs: number;
  /** Delete live resources that no document declares in APIs the documents own (plan's `--prune`). */
  readonly prune: boolean;
  readonly repairTwins: boolean;
  /** Reads and writes in flight at once. */
  readonly parallelism: number;
  /** Reconcile only this shard of the estate (as drift's `--shard`). */
  readonly shard?: ShardSpec | undefined;
}

export const DEFAULT_JITTER = 0.1;
export const DEFAULT_RETRY_MS = 5000;
export const DEFAULT_FIGHT = { corrections: 3, cycles: 10 } as const;
/** Where the endpoints listen unless `--listen` says otherwise (a port of no well-known service). */
export const DEFAULT_LISTEN = "127.0.0.1:8474";
