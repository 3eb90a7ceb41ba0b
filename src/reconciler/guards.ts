import type { DesiredStateProblem } from "../desired/desired-state-error.js";
import type { DriftInput } from "../reconcile/drift.js";

/**
 * The guard rails of the continuous reconciler (docs/manual/continuous-reconcile.md, "Guards"):
 * what stops a whole cycle's writes, and what holds back one resource's.
 */

/** Guards that stop every write of a cycle. */
export const CYCLE_GUARDS = ["desired-state", "shrink", "change-budget"] as const;
/** What holds back one resource's write while the others go ahead. */
export const RESOURCE_GUARDS = ["policy", "fighting", "settling", "protection"] as const;
export type CycleGuard = (typeof CYCLE_GUARDS)[number];
export type ResourceGuard = (typeof RESOURCE_GUARDS)[number];
export type GuardName = CycleGuard | ResourceGuard;
export const GUARD_NAMES: ReadonlyArray<GuardName> = [...CYCLE_GUARDS, ...RESOURCE_GUARDS];

/** A cycle-wide refusal: which guard, why, and for the desired state, every problem with its file and line. */
export interface CycleRefusal {
  readonly guard: CycleGuard;
  readonly message: string;
  readonly problems?: ReadonlyArray<DesiredStateProblem> | undefined;
}

/** The desired state a cycle loaded, or why it could not. */
export type LoadAttempt =
  | { readonly ok: true; readonly desired: DriftInput }
  | { readonly ok: false; readonly message: string; readonly problems: ReadonlyArray<DesiredStateProblem> };

/** The desired state a cycle works with, and whether its deletes may be made. */
export interface DesiredInForce {
  /** What is read and compared: the set just loaded, or the last good one when a guard refused it; none before any loaded. */
  readonly desired: DriftInput | undefined;
  /** Whether the set in force was loaded by this cycle (false: the last good one, kept). */
  readonly fresh: boolean;
  /** The cycle whose load is in force. */
  readonly since: number | undefined;
  /** Set when the desired state stops this cycle's writes (it did not load, or shrank). */
  readonly refusal?: CycleRefusal | undefined;
  /**
   * Whether the set reads as it did in the cycle before (same fingerprint, both loaded whole):
   * only then is a delete made, so that a checkout caught mid-sync is never taken for an intention.
   */
  readonly settled: boolean;
}

/**
 * What the reconciler remembers of desired states: the last good set (kept in force when a load
 * fails or shrinks suddenly) and the fingerprint of the set loaded whole by the cycle before.
 */
export class DesiredMemory {
  #lastGood: { readonly desired: DriftInput; readonly cycle: number } | undefined;
  #previousFingerprint: string | undefined;

  /** The desired state in force for cycle `cycle`, given what it loaded. */
  settle(attempt: LoadAttempt, cycle: number, allowShrink: boolean): DesiredInForce {
    const kept = this.#lastGood;
    if (!attempt.ok) {
      this.#previousFingerprint = undefined;
      return {
        desired: kept?.desired,
        fresh: false,
        since: kept?.cycle,
        refusal: { guard: "desired-state", message: attempt.message, problems: attempt.problems },
        settled: false,
      };
    }
    const loaded = attempt.desired;
    const size = sizeOf(loaded);
    const keptSize = kept ? sizeOf(kept.desired) : 0;
    if (kept && !allowShrink && size * 2 < keptSize) {
      this.#previousFingerprint = undefined;
      return {
        desired: kept.desired,
        fresh: false,
        since: kept.cycle,
        refusal: {
          guard: "shrink",
          message: `the desired state shrank from ${keptSize} to ${size} documents (by more than half) since cycle ${kept.cycle}: `
            + "the last good set stays in force and nothing is written; if the change is meant, restart with --allow-shrink "
            + "(or once the files are as meant, restart: a new process takes the set it finds)",
        },
        settled: false,
      };
    }
    const settled = this.#previousFingerprint === loaded.fingerprint;
    this.#previousFingerprint = loaded.fingerprint;
    this.#lastGood = { desired: loaded, cycle };
    return { desired: loaded, fresh: true, since: cycle, settled };
  }
}

/** Documents of every source: the files' and the terraform states' resources and claims. */
export function sizeOf(desired: DriftInput): number {
  return desired.documents.length + (desired.stateDocuments?.length ?? 0) + (desired.claims?.length ?? 0);
}

/** A fight: a resource corrected again and again because something else keeps changing it back. */
export interface Fight {
  readonly corrections: number;
  readonly cycles: number;
  /** The fields corrected (paths in the document's spec). */
  readonly fields: ReadonlyArray<string>;
  /** The cycle that found it. */
  readonly since: number;
}

/**
 * Corrections per resource, to find fights: `corrections` corrections within `cycles` cycles make a
 * resource fighting; it is then no longer corrected until its document changes or it is found in
 * sync (the other writer stopped, or gave in). A restart forgets all of it.
 */
export class FightTracker {
  readonly #limits: { readonly corrections: number; readonly cycles: number };
  readonly #history = new Map<string, { readonly corrections: ReadonlyArray<{ readonly cycle: number; readonly fields: ReadonlyArray<string> }>; readonly document: string }>();
  readonly #fighting = new Map<string, Fight & { readonly document: string }>();
  /** Resources seen live (in sync or corrected): a create of one of them is a correction. */
  readonly #seen = new Set<string>();

  constructor(limits: { readonly corrections: number; readonly cycles: number }) {
    this.#limits = limits;
  }

  /** The fight of the resource at `address`, unless its document (by `document`, a hash of it) changed since it was found. */
  fightOf(address: string, document: string): Fight | undefined {
    const fight = this.#fighting.get(address);
    if (fight && fight.document !== document) {
      this.#fighting.delete(address);
      this.#history.delete(address);
      return undefined;
    }
    return fight;
  }

  /**
   * Records a correction made in `cycle`; answers the fight it starts, if it is the one too many. A
   * create counts only for a resource this process saw before (in sync, or corrected): something
   * deleted it; the first create of a resource is no correction.
   */
  corrected(address: string, cycle: number, fields: ReadonlyArray<string>, document: string, created = false): Fight | undefined {
    if (created && !this.#seen.has(address)) {
      this.#seen.add(address);
      return undefined;
    }
    this.#seen.add(address);
    const entry = this.#history.get(address);
    const earlier = entry && entry.document === document ? entry.corrections.filter((at) => at.cycle > cycle - this.#limits.cycles) : [];
    const corrections = [...earlier, { cycle, fields }];
    this.#history.set(address, { corrections, document });
    if (corrections.length < this.#limits.corrections) return undefined;
    const corrected = [...new Set(corrections.flatMap((at) => at.fields))].sort();
    const fight = { corrections: corrections.length, cycles: this.#limits.cycles, fields: corrected, since: cycle, document };
    this.#fighting.set(address, fight);
    return fight;
  }

  /** A resource found in sync: its fight, if any, is over. */
  inSync(address: string): void {
    this.#seen.add(address);
    this.#fighting.delete(address);
    this.#history.delete(address);
  }

  get fighting(): number {
    return this.#fighting.size;
  }
}

/**
 * Findings reported once per change (a refusal is a finding, not a retry): a key (guard and
 * resource) with a detail (the reason and the live values it was made with); a finding is new when
 * the cycle before did not report it with the same detail.
 */
export class FindingMemory {
  #previous = new Map<string, string>();
  #current = new Map<string, string>();

  begin(): void {
    this.#current = new Map();
  }

  /** Records the finding of this cycle; answers whether it is new. */
  report(key: string, detail: string): boolean {
    this.#current.set(key, detail);
    return this.#previous.get(key) !== detail;
  }

  end(): void {
    this.#previous = this.#current;
  }
}
