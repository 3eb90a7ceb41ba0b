import { createHash } from "node:crypto";
import type { Clients } from "../clients/index.js";
import type { LoadedDocument } from "../desired/load.js";
import type { DriftInput } from "../reconcile/drift.js";
import type { PlannedAction } from "../reconcile/model.js";
import type { WriteRecord } from "./cycle-record.js";
import type { DesiredMemory, FightTracker, FindingMemory } from "./guards.js";
import type { ReconcilerOptions } from "./reconciler-options.js";

/** Where a cycle's desired state comes from: loaded anew each cycle (the CLI's -f paths, --from-synth, --state). */
export interface DesiredSource {
  /** Loads the whole desired state, or throws (a DesiredStateError naming every problem). */
  load(): Promise<DriftInput>;
}

/** Requests a cycle sent, as the clients' exchange listener counts them. */
export interface CycleMeter {
  requests: number;
  throttled: boolean;
  retryAfterMs: number;
}

export interface CycleContext {
  readonly clients: Clients;
  readonly options: ReconcilerOptions;
  readonly source: DesiredSource;
  readonly memory: DesiredMemory;
  readonly fights: FightTracker;
  readonly findings: FindingMemory;
  readonly meter: CycleMeter;
  /** Aborts the cycle's reads and writes (its deadline passed, or the lock was lost). */
  readonly signal: AbortSignal;
  /** Aborts its reads: `signal`, or a stop (SIGTERM), after which nothing is worth reading. */
  readonly readSignal: AbortSignal;
  /** Once aborted, no write starts; those under way finish (SIGTERM). */
  readonly stop: AbortSignal;
  readonly now: () => Date;
}

export function isWrite(action: PlannedAction): action is PlannedAction & { type: WriteRecord["type"] } {
  return action.type === "create" || action.type === "update" || action.type === "delete";
}

/** A hash of a document as loaded, so that a fight ends when its document changes. */
export function documentHash(loaded: LoadedDocument | undefined): string {
  return loaded === undefined ? "" : createHash("sha256").update(JSON.stringify(loaded.document)).digest("hex");
}

