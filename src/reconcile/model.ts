import type { AlternateContact, Region } from "../contract/account.js";
import type { Integration, ProtocolType, Route } from "../contract/gateway.js";
import type { Kind } from "../desired/schema.js";
import type { AccountKey, ReadKey } from "../desired/read-key.js";
import type { SourceLocation } from "../desired/desired-state-error.js";

/**
 * The data the reconciler reads, plans and applies. Everything here is plain JSON, so that a plan
 * can be written to a file, read back and applied, and so that plans compare by value.
 */

/** Live state of one API, as far as it was read. */
export interface LiveApi {
  readonly apiId: string;
  readonly name?: string | undefined;
  readonly protocolType?: ProtocolType | undefined;
  readonly routes: ReadonlyArray<Route>;
  readonly integrations: ReadonlyArray<Integration>;
}

export interface LiveState {
  readonly apis: Readonly<Record<string, LiveApi>>;
  /** API IDs by name, when some document referenced an API by name. */
  readonly apiIdsByName: Readonly<Record<string, ReadonlyArray<string>>>;
  /** `<account>/<type>` → the contact, or null when the account has none. */
  readonly contacts: Readonly<Record<string, AlternateContact | null>>;
  /** account → Region → status. */
  readonly regions: Readonly<Record<AccountKey, Readonly<Record<string, Region["RegionOptStatus"]>>>>;
}

/**
 * What must be read before planning: a document's read key; an API's may come with the protocol an
 * `Api` document declares (and, once a listing of APIs told them, its protocol and name).
 */
export type LiveNeed =
  | (Extract<ReadKey, { type: "api" }> & { readonly protocolType?: ProtocolType | undefined; readonly name?: string | undefined })
  | Exclude<ReadKey, { type: "api" }>;

export type ActionType = "create" | "update" | "delete" | "no-op" | "refused";

/** One field that differs: its path in the document's spec, the live value and the desired one. */
export interface FieldChange {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * One planned action. `request` holds exactly what apply sends (kind-specific JSON); apply runs
 * it and nothing else.
 */
export interface PlannedAction {
  /** Stable address, e.g. `Route/a1b2c3d4e5/GET /orders`. */
  readonly address: string;
  readonly kind: Kind;
  readonly type: ActionType;
  /** Display name (for --target KIND/NAME). */
  readonly name: string;
  /** Identity key the action is sharded and matched by. */
  readonly identity: string;
  readonly source?: SourceLocation | undefined;
  readonly changes: ReadonlyArray<FieldChange>;
  /** Why: the reason of a refusal, or of a delete ("ensure: absent", "pruned: not declared"). */
  readonly reason?: string | undefined;
  /** Apply order: lower phases first; actions of one phase run concurrently. */
  readonly phase: number;
  readonly request?: ActionRequest | undefined;
}

/**
 * A request of one kind's engine: exactly what apply sends. Each kind defines its own operations
 * (src/reconcile/kinds/); KindRequest of src/reconcile/kinds/registry.ts is the union of them all.
 */
export interface ActionRequest {
  /** The operation, which names the engine that executes it (KindEngine.ops). */
  readonly op: string;
}

/**
 * Phases of apply (docs/manual/plan-and-apply.md: integrations before the routes that target them; deletes last,
 * routes before integrations). Route updates come before route creates, so that a route renamed by
 * its pin frees its old key before a create takes it.
 */
export const PHASE = {
  independent: 0,
  integrations: 0,
  routes: 1,
  routeCreates: 2,
  routeDeletes: 3,
  integrationDeletes: 4,
} as const;

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  readonly delete: number;
  readonly noop: number;
  readonly refused: number;
}

export const PLAN_FORMAT_VERSION = 1;

/** A plan as `plan --out` writes it and `apply PLAN.json` reads it (docs/manual/plan-and-apply.md, "Plan JSON"). */
export interface Plan {
  readonly formatVersion: typeof PLAN_FORMAT_VERSION;
  /** Hash of the live state the plan was made from; apply refuses when live state has changed. */
  readonly liveFingerprint: string;
  readonly prune: boolean;
  /** Identical twins of declared integrations are repaired in every API (`--repair-twins`), not only in pruned ones. */
  readonly repairTwins: boolean;
  readonly actions: ReadonlyArray<PlannedAction>;
  readonly summary: PlanSummary;
}

export function summarize(actions: ReadonlyArray<PlannedAction>): PlanSummary {
  const count = (type: ActionType) => actions.filter((a) => a.type === type).length;
  return { create: count("create"), update: count("update"), delete: count("delete"), noop: count("no-op"), refused: count("refused") };
}

export function hasChanges(plan: Pick<Plan, "summary">): boolean {
  return plan.summary.create + plan.summary.update + plan.summary.delete > 0;
}
