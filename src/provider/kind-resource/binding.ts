import type { Document, Kind } from "../../desired/schema.js";
import type { ApplyContext } from "../../reconcile/kinds/kind-engine.js";
import type { LiveState, PlannedAction } from "../../reconcile/model.js";
import type { Schema, Value } from "../runtime/index.js";
import type { AttributeOfPath, SpecField } from "../terraform-fields.js";

/** A resource's attribute values (configuration, plan or state) by attribute name. */
export type Values = Readonly<Record<string, Value>>;

/** How a document for terraform values is made: the live resource terraform holds (`pin`), or none; `absent` to delete it. */
export interface DocumentOptions {
  readonly pin?: Values | undefined;
  readonly ensure?: "absent";
}

/**
 * What a converge kind is to terraform without its engine: how its values become the kind's
 * document, and which attribute a document path names. Validating a configuration needs no more
 * (validate.ts), so a process that only validates loads no more (the kind's `*-document.ts` in
 * src/provider/resources/, which import neither the clients nor the engine).
 */
export interface KindDocument {
  readonly kind: Kind;
  /** terraform's name of the resource type (resourceTypeOf of the kind, src/desired/terraform-attributes.ts). */
  readonly typeName: string;
  readonly fields: ReadonlyArray<SpecField>;
  /** The kind's document for the values (unknown values left out). */
  document(values: Values, options: DocumentOptions): Record<string, unknown>;
  /** The attribute a document path names (`spec.routeKey` → `route_key`), if any. */
  attributeOf(path: string): AttributeOfPath | undefined;
}

/**
 * What a converge kind is to terraform, what every kind has: its document (`KindDocument`), where
 * its live counterpart is (`Live`: the live resource as the service lists it), and what state a
 * live resource has. The shared flow (`kindResource`, index.ts) does the rest with the engine's own
 * planning, protections and requests, as `converge plan` and `apply` do. What only some kinds have
 * is a capability below (`BindingWith…`), each an interface with its one guard (`hasMoves`, …), as
 * terraform-plugin-framework checks a `ResourceWith…` interface: a binding's declared type names the
 * capabilities it has (`KindBinding<Integration> & BindingWithHolding & …`), and the shared flow
 * finds each by its guard.
 */
export interface KindBinding<Live> extends KindDocument {
  readonly schema: Schema;
  /** The attributes that name the live resource (an API, an account): while one is unknown the engine cannot plan. */
  readonly identityAttributes: ReadonlyArray<string>;
  /** The live resource the state holds; undefined when it is gone. */
  liveOf(state: Values, live: LiveState): Live | undefined;
  /**
   * The live resource a planned action acts on: the one it matched (`context` after apply, which
   * knows what a create made), undefined before a create.
   */
  matched(action: PlannedAction, values: Values, live: LiveState, context?: ApplyContext): Live | undefined;
  /** The values of the spec attributes as the live resource has them, for the state's identity filled in from live. */
  liveValues(live: Live): Values;
  /** The state of a live resource: its IDs and computed attributes, the spec attributes given, the identity `held` names (its API, its account). */
  state(live: Live, specValues: Values, held: Values): Values;
  /** The state's identity from an import ID (the other attributes null; `read` fills them in). */
  importId(id: string): Values;
  /** The live resource for people: `route abc1234 (GET /orders)`. */
  describe(live: Live): string;
  /** The spec fields the action's request sends, with their wire values (a create's body, an update's patch). */
  requestFields(action: PlannedAction): Readonly<Record<string, unknown>>;
}

/** The live resource a natural-key import ID names: the values that say which live state to read, and how to find it there. */
export interface NaturalImport<Live> {
  readonly values: Values;
  /** The one live resource the ID names; throws when none or several do. */
  find(live: LiveState): Live;
}

/** A kind whose live resources may be imported by converge's identity (natural-import-id.ts) as well as by `importId`'s form. */
export interface BindingWithNaturalImport<Live> {
  /** The natural import the ID names; undefined for an ID of the `importId` form. */
  naturalImport(id: string): NaturalImport<Live> | undefined;
}

/** A kind whose state may be moved from a `terraform_data` holding one of its documents (moved-from-terraform-data.ts). */
export interface BindingWithMoves {
  /** The import ID of the live resource a document of the kind names (its pin, else its natural key). */
  importIdOf(document: Document): string;
}

/**
 * For a kind terraform may hold several live resources of under one converge identity
 * (integrations of one natural key, each resource pinned by its ID): which live resource a state
 * holds, and which ones a new resource may adopt.
 */
export interface Holding {
  /** The key of the live resource a state holds (`API_ID/INTEGRATION_ID`); undefined while it holds none. */
  heldKey(state: Values): string | undefined;
  /** The keys of the live resources in `live` that `document` matches by converge's identity. */
  matches(live: LiveState, document: Document): string[];
  /** `live` keeping, of the live resources `document` matches, only the one of `key` (none when undefined). */
  only(live: LiveState, document: Document, key: string | undefined): LiveState;
}

/**
 * A kind of which one converge identity may name several live resources (integrations): a new
 * resource then adopts only a live one that is as declared, was live before the command, and no
 * state the process has seen holds (holding.ts). Without it any match is adopted (a route of its
 * key, a contact of its type: there is only one).
 */
export interface BindingWithHolding {
  readonly holding: Holding;
}

/** A kind whose deletes are judged against another view of live state than the one read. */
export interface BindingWithDeleteView {
  /**
   * Live state as a delete planned now should judge it. A delete runs later in terraform's order,
   * after the deletes that depend on it: what those remove should not refuse it now.
   */
  beforeDelete(live: LiveState): LiveState;
}

/** A kind whose engine's change paths are not its spec fields (a Region opt-in's status is its `enabled`). */
export interface BindingWithChangedFields {
  /** The spec fields an action's changes are about. Without it: each change's path. */
  changedFields(action: PlannedAction): ReadonlyArray<string>;
}

/** A kind that says whether a create may adopt a live resource. Without it: it may. */
export interface BindingWithAdoption {
  /**
   * Whether creating one may find a live one already (a route of the same key, an integration of the
   * same natural key, a contact of the same type): the plan warns that it adopts it. False for kinds
   * whose live resource always exists (a Region).
   */
  readonly mayAdopt: boolean;
}

/** Whether the binding imports by converge's identity (`BindingWithNaturalImport`). */
export function hasNaturalImport<Live>(binding: KindBinding<Live>): binding is KindBinding<Live> & BindingWithNaturalImport<Live> {
  return "naturalImport" in binding;
}

/** Whether the binding can take state moved from a `terraform_data` (`BindingWithMoves`). */
export function hasMoves<Live>(binding: KindBinding<Live>): binding is KindBinding<Live> & BindingWithMoves {
  return "importIdOf" in binding;
}

/** Whether one converge identity of the kind may name several live resources (`BindingWithHolding`). */
export function hasHolding<Live>(binding: KindBinding<Live>): binding is KindBinding<Live> & BindingWithHolding {
  return "holding" in binding;
}

/** Whether the kind's deletes are judged against a view of live state of their own (`BindingWithDeleteView`). */
export function hasDeleteView<Live>(binding: KindBinding<Live>): binding is KindBinding<Live> & BindingWithDeleteView {
  return "beforeDelete" in binding;
}

/** Whether the kind maps its engine's changes to spec fields itself (`BindingWithChangedFields`). */
export function hasChangedFields<Live>(binding: KindBinding<Live>): binding is KindBinding<Live> & BindingWithChangedFields {
  return "changedFields" in binding;
}

/** Whether the kind says if a create may adopt a live resource (`BindingWithAdoption`). */
export function hasAdoption<Live>(binding: KindBinding<Live>): binding is KindBinding<Live> & BindingWithAdoption {
  return "mayAdopt" in binding;
}
