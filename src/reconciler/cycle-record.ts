import type { DesiredStateProblem } from "../desired/desired-state-error.js";
import type { ReconcilePolicy } from "../desired/schema.js";
import type { DriftReport, DriftResource } from "../reconcile/drift-report.js";
import type { ActionType, FieldChange } from "../reconcile/model.js";
import type { CycleRefusal, GuardName } from "./guards.js";

/**
 * What one cycle of the continuous reconciler found and did, in drift's terms (the same outcomes,
 * identities and fields as drift's JSON report) plus what the loop adds: the state each resource
 * was left in, the writes, the guard that stopped a cycle. `GET /status` answers the last one.
 */

/**
 * Where a cycle left a resource: drift's outcome, or `corrected` (written this cycle, the write
 * acknowledged) or `fighting` (corrected too often: something else keeps changing it back).
 */
export const RESOURCE_STATES = ["in-sync", "corrected", "drifted", "missing", "unmanaged", "conflict", "refused", "fighting", "unknown"] as const;
export type ResourceState = (typeof RESOURCE_STATES)[number];

/** A write the cycle held back: by which guard, and why. */
export interface Withheld {
  readonly guard: GuardName;
  readonly reason: string;
}

/** A resource of the cycle: drift's entry (outcome as read, before any write), the state the cycle left it in, and what held its write back. */
export type ResourceStatus = DriftResource & {
  readonly state: ResourceState;
  readonly withheld?: Withheld | undefined;
};

/** One write the cycle made (or tried). */
export interface WriteRecord {
  readonly address: string;
  readonly kind: string;
  readonly type: Extract<ActionType, "create" | "update" | "delete">;
  readonly changes: ReadonlyArray<FieldChange>;
  readonly status: "done" | "failed" | "skipped";
  readonly error?: string | undefined;
}

/** How a cycle ended: nothing left to do (`success`), differences held back (`drift`), its writes stopped by a guard (`refused`), reads or writes failed (`error`). */
export const CYCLE_RESULTS = ["success", "drift", "refused", "error"] as const;
export type CycleResult = (typeof CYCLE_RESULTS)[number];

/** A finding the cycle reports: a refusal of a guard (cycle-wide or one resource's); `new` when the cycle before did not report it the same. */
export interface Finding {
  readonly guard: GuardName;
  readonly address?: string | undefined;
  readonly message: string;
  readonly new: boolean;
}

export interface CycleRecord {
  readonly cycle: number;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly result: CycleResult;
  readonly policy: ReconcilePolicy;
  /** The guard that stopped every write of the cycle, if one did. */
  readonly guard?: CycleRefusal | undefined;
  readonly desiredState: {
    /** Whether this cycle's load of the desired state was taken (else the last good set is in force, or none). */
    readonly loaded: boolean;
    /** The cycle whose load is in force. */
    readonly inForceSince: number | null;
    readonly documents: number;
    readonly fingerprint: string | null;
    readonly problems: ReadonlyArray<DesiredStateProblem>;
  };
  /** Why the cycle failed, when it did. */
  readonly error?: string | undefined;
  /** Requests the cycle sent (retries included), and whether the endpoint throttled some. */
  readonly requests: number;
  readonly throttled: boolean;
  readonly summary: Readonly<Record<ResourceState, number>>;
  readonly resources: ReadonlyArray<ResourceStatus>;
  readonly writes: ReadonlyArray<WriteRecord>;
  readonly findings: ReadonlyArray<Finding>;
  /** The drift report of what the cycle read (before its writes), for the status page. */
  readonly report: DriftReport | undefined;
}

export function summarizeStates(resources: ReadonlyArray<{ readonly state: ResourceState }>): Record<ResourceState, number> {
  const summary = Object.fromEntries(RESOURCE_STATES.map((state) => [state, 0])) as Record<ResourceState, number>;
  for (const resource of resources) summary[resource.state] += 1;
  return summary;
}
