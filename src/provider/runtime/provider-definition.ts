import type { AttributePath } from "./attribute-path.js";
import type { Diagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import type { ConfigOf, PlannedOf, Schema, StateOf } from "./schema.js";

/**
 * What every call of a resource, data source or provider receives besides its values. `provider`
 * is what the provider's `configure` returned (a client, say); `signal` aborts when terraform asks
 * the provider to stop (Ctrl-C); `log` writes to terraform's log.
 */
export interface CallContext<P> {
  readonly provider: P;
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/**
 * What a plan changes about the resource: `create` (no prior state), `update` (prior state and
 * configuration; possibly no change at all) or `delete` (the configuration is gone, or the resource
 * is being destroyed; `config` and `planned` are null).
 */
export type PlanAction = "create" | "update" | "delete";

export interface PlanRequest<S extends Schema, P> extends CallContext<P> {
  readonly action: PlanAction;
  /** The configuration; null for `delete`. May contain unknowns. */
  readonly config: ConfigOf<S> | null;
  /** The state before the change; null for `create`. */
  readonly prior: StateOf<S> | null;
  /**
   * The runtime's plan, which is the answer when `plan` returns nothing: terraform's proposed new
   * state (configuration merged over the prior state) with attributes' defaults, and computed
   * attributes the configuration leaves null made unknown on create and on an update that changes
   * something (`useStateForUnknown` ones keep their prior value). Null for `delete`.
   */
  readonly planned: PlannedOf<S> | null;
}

/** A resource's plan: each part left out keeps the runtime's. */
export interface PlanResult<S extends Schema> {
  /** The planned new state: unknown where only apply will tell. Must keep the configuration's non-null values of non-computed attributes. */
  readonly planned?: PlannedOf<S> | null;
  /** Attributes whose change makes terraform replace the resource, added to those of `requiresReplace` attributes. */
  readonly requiresReplace?: ReadonlyArray<AttributePath>;
  /** Errors (which stop the plan: a refused destroy, say) and warnings. */
  readonly diagnostics?: ReadonlyArray<Diagnostic>;
}

/**
 * A managed resource type (terraform-plugin-framework's `resource.Resource`): what every resource
 * type has. What only some have is a capability of its own below (`ResourceWith…`), found by its
 * guard. The runtime decodes and encodes values with `schema`, checks every answer against
 * terraform's rules before terraform does, and turns a thrown error into an error diagnostic (a
 * thrown `DiagnosticsError` into its diagnostics). Calls arrive concurrently: keep no mutable state
 * in the object itself.
 */
export interface ResourceType<S extends Schema, P = unknown> {
  readonly schema: S;
  /** Checks configuration beyond the schema; values may be unknown (check only what is known). */
  validate?(request: { readonly config: ConfigOf<S>; readonly log: Logger }): ReadonlyArray<Diagnostic> | void | Promise<ReadonlyArray<Diagnostic> | void>;
  /** Adjusts the runtime's plan (see `PlanRequest.planned`); also called for deletes, so it can refuse one. */
  plan?(request: PlanRequest<S, P>): PlanResult<S> | void | Promise<PlanResult<S> | void>;
  /** Reads the live resource for `state`; null when it is gone (terraform then plans to create it). */
  read(request: CallContext<P> & { readonly state: StateOf<S> }): Promise<StateOf<S> | null>;
  /** Creates the resource; returns its state, every unknown of `planned` filled in. */
  create(request: CallContext<P> & { readonly planned: PlannedOf<S>; readonly config: ConfigOf<S> }): Promise<StateOf<S>>;
  /** Updates the resource in place; returns its state, every unknown of `planned` filled in. */
  update(request: CallContext<P> & { readonly prior: StateOf<S>; readonly planned: PlannedOf<S>; readonly config: ConfigOf<S> }): Promise<StateOf<S>>;
  /** Deletes the resource. */
  delete(request: CallContext<P> & { readonly prior: StateOf<S> }): Promise<void>;
}

/**
 * A resource type that `terraform import` can import (terraform-plugin-framework's
 * `ResourceWithImportState`). Without it, ImportResourceState answers that the type cannot be imported.
 */
export interface ResourceWithImportState<S extends Schema, P = unknown> {
  /** The state the import id names, with at least what `read` needs (terraform calls `read` next); null when nothing has that id. */
  importState(request: CallContext<P> & { readonly id: string }): Promise<StateOf<S> | null>;
}

/**
 * A resource type whose `schema.version` has moved on (terraform-plugin-framework's
 * `ResourceWithUpgradeState`). Without it, only state of the current version is accepted.
 */
export interface ResourceWithUpgradeState {
  /** State written with an older `schema.version`, as parsed JSON, rewritten for the current schema (also as JSON-shaped data). */
  upgradeState(request: { readonly version: number; readonly state: unknown; readonly log: Logger }): unknown | Promise<unknown>;
}

/** What a resource's `moveState` receives: where the state comes from, and the state as parsed JSON (terraform's state file form). */
export interface MoveStateRequest {
  /** The source's provider, e.g. `terraform.io/builtin/terraform`, `registry.terraform.io/converge/converge`. */
  readonly sourceProviderAddress: string;
  readonly sourceTypeName: string;
  readonly sourceSchemaVersion: number;
  readonly sourceState: unknown;
}

/**
 * A resource type that takes state from another type (`moved { from = other_type.x  to = this.y }`,
 * terraform ≥ 1.8; terraform-plugin-framework's `ResourceWithMoveState`): the target's state for the
 * source's, or null when it does not take state from that type (terraform then reports that the
 * move is not supported). terraform asks before it configures the provider: the state is made from
 * the source's alone, and `read`, which terraform calls next, finds the live resource.
 */
export interface ResourceWithMoveState<S extends Schema> {
  moveState(request: MoveStateRequest & { readonly log: Logger }): Promise<StateOf<S> | null>;
}

/**
 * Whether a resource type can be imported. Each capability is found this way, by its one guard (as
 * terraform-plugin-framework asserts a `ResourceWith…` interface): the member is there.
 */
export function isResourceWithImportState<S extends Schema, P>(resource: ResourceType<S, P>): resource is ResourceType<S, P> & ResourceWithImportState<S, P> {
  return "importState" in resource && typeof resource.importState === "function";
}

/** Whether a resource type upgrades state of older schema versions (see `isResourceWithImportState`). */
export function isResourceWithUpgradeState<S extends Schema, P>(resource: ResourceType<S, P>): resource is ResourceType<S, P> & ResourceWithUpgradeState {
  return "upgradeState" in resource && typeof resource.upgradeState === "function";
}

/** Whether a resource type takes state moved from other types (see `isResourceWithImportState`). */
export function isResourceWithMoveState<S extends Schema, P>(resource: ResourceType<S, P>): resource is ResourceType<S, P> & ResourceWithMoveState<S> {
  return "moveState" in resource && typeof resource.moveState === "function";
}

/** A data source (terraform-plugin-framework's `datasource.DataSource`). */
export interface DataSourceType<S extends Schema, P = unknown> {
  readonly schema: S;
  validate?(request: { readonly config: ConfigOf<S>; readonly log: Logger }): ReadonlyArray<Diagnostic> | void | Promise<ReadonlyArray<Diagnostic> | void>;
  /** Reads the data: the configuration's values kept, its computed attributes filled in. */
  read(request: CallContext<P> & { readonly config: StateOf<S> }): Promise<StateOf<S>>;
}

/**
 * A provider: its configuration schema, what `configure` makes of the configuration (passed to
 * every resource and data source call as `provider`), and its types by their full names, which
 * start with `name` and an underscore (`example_thing` for `example`).
 */
export interface ProviderDefinition<PS extends Schema = Schema, P = unknown> {
  readonly name: string;
  readonly schema: PS;
  validate?(request: { readonly config: ConfigOf<PS>; readonly log: Logger }): ReadonlyArray<Diagnostic> | void | Promise<ReadonlyArray<Diagnostic> | void>;
  /** Called once per provider process before any resource call (values may be unknown when they depend on resources not yet created). */
  configure(request: { readonly config: ConfigOf<PS>; readonly terraformVersion: string; readonly log: Logger }): P | Promise<P>;
  readonly resources: Readonly<Record<string, ListedResource<P>>>;
  readonly dataSources: Readonly<Record<string, ListedDataSource<P>>>;
}

/**
 * A `ResourceType` of any schema, as a provider lists it: TypeScript cannot see that a resource of
 * one schema is a resource of the general `Schema` (the values' types are computed from the schema),
 * so the list checks each entry's shape and its provider type `P`, and the runtime calls it with the
 * values of its own schema.
 */
export interface ListedResource<P> {
  readonly schema: Schema;
  validate?(request: never): ReturnType<NonNullable<ResourceType<Schema, P>["validate"]>>;
  plan?(request: CallContext<P> & { readonly action: PlanAction; readonly config: never; readonly prior: never; readonly planned: never }): unknown;
  read(request: CallContext<P> & { readonly state: never }): Promise<unknown>;
  create(request: CallContext<P> & { readonly planned: never; readonly config: never }): Promise<unknown>;
  update(request: CallContext<P> & { readonly prior: never; readonly planned: never; readonly config: never }): Promise<unknown>;
  delete(request: CallContext<P> & { readonly prior: never }): Promise<void>;
  /** The optional capabilities, each found by its guard: `ResourceWithImportState`, `ResourceWithUpgradeState`, `ResourceWithMoveState`. */
  importState?(request: CallContext<P> & { readonly id: string }): Promise<unknown>;
  upgradeState?(request: never): unknown;
  moveState?(request: never): Promise<unknown>;
}

/** A `DataSourceType` of any schema, as a provider lists it (see `ListedResource`). */
export interface ListedDataSource<P> {
  readonly schema: Schema;
  validate?(request: never): ReturnType<NonNullable<DataSourceType<Schema, P>["validate"]>>;
  read(request: CallContext<P> & { readonly config: never }): Promise<unknown>;
}

/** A `ProviderDefinition` of any provider schema, as `serveProvider` takes it (see `ListedResource`). */
export interface ServedProvider<P> {
  readonly name: string;
  readonly schema: Schema;
  validate?(request: never): ReturnType<NonNullable<ProviderDefinition<Schema, P>["validate"]>>;
  configure(request: never): P | Promise<P>;
  readonly resources: Readonly<Record<string, ListedResource<P>>>;
  readonly dataSources: Readonly<Record<string, ListedDataSource<P>>>;
}
