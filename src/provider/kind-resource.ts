import { formatFieldPath } from "../contract/field-issues.js";
import { modelOf } from "../desired/kinds/registry.js";
import type { ApplyContext } from "../reconcile/kinds/kind-engine.js";
import type { LiveNeed, LiveState, PlannedAction } from "../reconcile/model.js";
import type { Document, Kind } from "../desired/schema.js";
import {
  DiagnosticsError,
  errorDiagnostic,
  isUnknown,
  warningDiagnostic,
  type Diagnostic,
  type MovableResource,
  type PlanResult,
  type ResourceType,
  type Schema,
  type Value,
} from "./runtime/index.js";
import type { LoadedDocument } from "../desired/load.js";
import { applyAction, needsOfDocument, planDocument, terraformDocument, type ConvergeSession, type OnePlan } from "./converge-session.js";
import { documentOfMovedState } from "./moved-from-terraform-data.js";
import { attributeOfWire, type AttributeOfPath, type SpecField } from "./terraform-fields.js";

/** A resource's attribute values (configuration, plan or state) by attribute name. */
export type Values = Readonly<Record<string, Value>>;

/** How a document for terraform values is made: the live resource terraform holds (`pin`), or none; `absent` to delete it. */
export interface DocumentOptions {
  readonly pin?: Values | undefined;
  readonly ensure?: "absent";
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
 * What a converge kind is to terraform: how its values become the kind's document, where its live
 * counterpart is (`Live`: the live resource as the service lists it), and what state a live
 * resource has. The shared flow (`kindResource`) does the rest with the engine's own planning,
 * protections and requests, as `converge plan` and `apply` do.
 */
export interface KindBinding<Live> {
  readonly kind: Kind;
  /** terraform's name of the resource type (`converge_route`: resourceTypeOf of the kind, src/desired/terraform-attributes.ts). */
  readonly typeName: string;
  readonly schema: Schema;
  readonly fields: ReadonlyArray<SpecField>;
  /** The attributes that name the live resource (an API, an account): while one is unknown the engine cannot plan. */
  readonly identityAttributes: ReadonlyArray<string>;
  /** The kind's document for the values (unknown values left out). */
  document(values: Values, options: DocumentOptions): Record<string, unknown>;
  /** The attribute a document path names (`spec.routeKey` → `route_key`), if any. */
  attributeOf(path: string): AttributeOfPath | undefined;
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
  /** The import ID of the live resource a document of the kind names (its pin, else its natural key), for a state moved from a `terraform_data` holding the document. */
  importIdOf?(document: Document): string;
  /**
   * For an import ID that names the live resource by converge's identity (natural-import-id.ts):
   * the values that say which live state to read, and the one live resource they name (throws when
   * none or several do); undefined for an ID of the `importId` form.
   */
  naturalImport?(id: string): { readonly values: Values; find(live: LiveState): Live } | undefined;
  /** The live resource for people: `route abc1234 (GET /orders)`. */
  describe(live: Live): string;
  /**
   * Whether creating one may find a live one already (a route of the same key, an integration of the
   * same natural key, a contact of the same type): the plan warns that it adopts it. Not for kinds
   * whose live resource always exists (a Region). @default true
   */
  readonly mayAdopt?: boolean;
  /**
   * Set for kinds of which one converge identity may name several live resources (integrations):
   * a new resource then adopts only a live one that is as declared, was live before the command,
   * and no state the process has seen holds (planNew). @default any match is adopted (a route of its key, a
   * contact of its type: there is only one)
   */
  readonly holding?: Holding;
  /** The spec fields an action's changes are about (the engine's change paths). @default each change's path */
  changedFields?(action: PlannedAction): ReadonlyArray<string>;
  /** The spec fields the action's request sends, with their wire values (a create's body, an update's patch). */
  requestFields(action: PlannedAction): Readonly<Record<string, unknown>>;
  /**
   * Live state as a delete planned now should judge it. A delete runs later in terraform's order,
   * after the deletes that depend on it: what those remove should not refuse it now.
   */
  beforeDelete?(live: LiveState): LiveState;
}

/** A problem of the engine or the schema, as a diagnostic on the attribute it is about. */
function problemDiagnostic<Live>(binding: KindBinding<Live>, path: string, message: string): Diagnostic {
  const at = binding.attributeOf(path);
  // the engine's messages start with the document's field path; terraform users know the attribute
  const named = at !== undefined && message.startsWith(at.prefix) && /^[\s.[]/.test(message.slice(at.prefix.length));
  return errorDiagnostic(named ? `${at.attribute}${message.slice(at.prefix.length)}` : message, undefined, at === undefined ? undefined : [at.attribute]);
}

function refusal<Live>(binding: KindBinding<Live>, action: PlannedAction, deleting: boolean): Diagnostic {
  const field = action.changes[0]?.path;
  const at = field === undefined ? undefined : binding.attributeOf(`spec.${field}`);
  // a refused delete: terraform can still stop managing the resource without deleting it
  const forget = deleting
    ? " To stop managing it without deleting it, remove it from the state: a removed block with lifecycle { destroy = false }, or terraform state rm."
    : "";
  return errorDiagnostic(
    `${binding.typeName}: refused by a converge protection`,
    `${action.reason ?? "refused"}. Nothing was sent to the service.${forget}`,
    at === undefined ? undefined : [at.attribute],
  );
}

/** The diagnostics of a plan that has no action to take, or of a refused action; empty when the action may go ahead. */
function planDiagnostics<Live>(binding: KindBinding<Live>, planned: OnePlan, deleting = false): Diagnostic[] {
  if ("problems" in planned) return planned.problems.map((problem) => problemDiagnostic(binding, problem.path, problem.message));
  return planned.action.type === "refused" ? [refusal(binding, planned.action, deleting)] : [];
}

/** The document of terraform values as the kind's schema accepts it, or the diagnostics of every attribute it refuses (those still unknown aside). */
function checkedDocument<Live>(binding: KindBinding<Live>, values: Values, options: DocumentOptions) {
  const checked = terraformDocument(binding.kind, binding.document(values, options));
  if ("loaded" in checked) return checked;
  const diagnostics = checked.issues
    .map((issue) => ({ issue, path: formatFieldPath(issue.path) }))
    .filter(({ path }) => {
      const at = binding.attributeOf(path);
      return at === undefined || !isUnknown(values[at.attribute] ?? null);
    })
    .map(({ issue, path }) => problemDiagnostic(binding, path, issue.message));
  return { diagnostics };
}

function identityKnown<Live>(binding: KindBinding<Live>, values: Values): boolean {
  return binding.identityAttributes.every((attribute) => !isUnknown(values[attribute] ?? null));
}

/** The reads the resource's document needs (its read key), from the values that name it. */
function needsOf<Live>(binding: KindBinding<Live>, values: Values): Promise<LiveNeed[]> {
  return needsOfDocument(binding.document(values, {}));
}

/** Throws the diagnostics as a DiagnosticsError when they hold an error. */
function throwIfErrors(diagnostics: ReadonlyArray<Diagnostic>): void {
  if (diagnostics.some((diagnostic) => diagnostic.severity === "error")) throw new DiagnosticsError(diagnostics);
}

/**
 * Values for the document, with each defaulted attribute as configured: the plan carries a prior
 * value forward where the configuration leaves it out, yet left out it is "don't care" to the
 * engine (which may then send the service's default, say authorizationType NONE when an
 * authorizer is detached).
 */
function asConfigured<Live>(binding: KindBinding<Live>, values: Values, config: Values): Values {
  const configured: Record<string, Value> = { ...values };
  for (const field of binding.fields) if (field.presence === "defaulted") configured[field.attribute] = config[field.attribute] ?? null;
  return configured;
}

/**
 * The plan with each defaulted attribute the configuration leaves out, and the engine's request
 * sends, at the value it sends. (Computed attributes an update changes, a Region's status say, are
 * unknown in the runtime's plan already: only those marked useStateForUnknown keep their value.)
 */
function withSentDefaults<Live>(binding: KindBinding<Live>, planned: Values, config: Values, action: PlannedAction): Values {
  const sent = binding.requestFields(action);
  const adjusted: Record<string, Value> = { ...planned };
  for (const field of binding.fields) {
    if (field.presence === "defaulted" && (config[field.attribute] ?? null) === null && Object.hasOwn(sent, field.field)) {
      adjusted[field.attribute] = attributeOfWire(field, sent[field.field]);
    }
  }
  return adjusted;
}

/** Spec attributes of values whose fields the engine found different from live are live's; the others stay as terraform holds them. */
function heldOrLive<Live>(binding: KindBinding<Live>, held: Values, live: Values, changed: ReadonlySet<string>, options: { readonly fillDefaulted: boolean }): Values {
  return Object.fromEntries(binding.fields.map((field) => {
    const value = held[field.attribute] ?? null;
    const useLive = changed.has(field.field) || isUnknown(value) || (options.fillDefaulted && field.presence === "defaulted" && value === null);
    return [field.attribute, useLive ? live[field.attribute] ?? null : value];
  }));
}

/**
 * A terraform resource of a converge kind: validation by the kind's schema, plans and protections
 * by the kind's engine against the live state of the command, creates, updates and deletes by the
 * engine's requests, refresh by the engine's diff rules (a value the engine finds equal to live is
 * kept as written).
 */
export function kindResource<Live>(binding: KindBinding<Live>): KindResource {
  const changedFieldsOf = (action: PlannedAction) => new Set(binding.changedFields ? binding.changedFields(action) : action.changes.map((change) => change.path));

  // a kind converge never deletes (a Region opt-in) is only forgotten by terraform
  const undeletable = modelOf(binding.kind).undeletable;

  async function checkDelete(session: ConvergeSession, prior: Values, signal: AbortSignal): Promise<Diagnostic[]> {
    if (undeletable !== undefined) return [warningDiagnostic(`${binding.typeName}: destroying leaves the live resource as it is`, `converge never deletes it: ${undeletable}.`)];
    const checked = checkedDocument(binding, prior, { pin: prior, ensure: "absent" });
    if (!("loaded" in checked)) return [];
    const planned = await planDocument(session, checked.loaded, { signal, live: binding.beforeDelete });
    // a resource whose API is gone has nothing left to delete: no problem then
    return "action" in planned && planned.action.type === "refused" ? [refusal(binding, planned.action, true)] : [];
  }

  /** Notes the live resource a state holds, so that no new resource of this command adopts it. */
  function hold(session: ConvergeSession, state: Values | null): void {
    const key = state === null ? undefined : binding.holding?.heldKey(state);
    if (key !== undefined) session.held.add(key);
  }

  /**
   * Plans a new resource as the engine does; for a kind with `holding`, adopting only a live
   * resource that is as declared (a no-op), was live before the command (never what another
   * resource of it just created), and no state seen holds; else it plans a create. One that
   * differs may belong to a resource terraform does not call the provider for (it calls it only for
   * the resources it changes): adopting it would make two resources fight over one live resource.
   */
  async function planNew(session: ConvergeSession, loaded: LoadedDocument, values: Values, signal: AbortSignal): Promise<OnePlan> {
    const holding = binding.holding;
    if (holding === undefined) return planDocument(session, loaded, { signal });
    const needs = await needsOf(binding, values);
    const before = new Set(holding.matches(await session.cache.firstRead(needs, signal), loaded.document));
    for (const key of holding.matches(await session.cache.read(needs, signal), loaded.document)) {
      if (!before.has(key) || session.held.has(key)) continue;
      const planned = await planDocument(session, loaded, { signal, live: (live) => holding.only(live, loaded.document, key) });
      if (!("action" in planned) || planned.action.type === "no-op") return planned;
    }
    return planDocument(session, loaded, { signal, live: (live) => holding.only(live, loaded.document, undefined) });
  }

  async function write(session: ConvergeSession, values: Values, config: Values, pin: Values | undefined, signal: AbortSignal): Promise<Values> {
    const checked = checkedDocument(binding, asConfigured(binding, values, config), { pin });
    if (!("loaded" in checked)) throw new DiagnosticsError(checked.diagnostics);
    const planned = pin === undefined ? await planNew(session, checked.loaded, values, signal) : await planDocument(session, checked.loaded, { signal });
    throwIfErrors(planDiagnostics(binding, planned));
    if (!("action" in planned)) throw new Error("no action planned");
    const context = await applyAction(session, planned.action, { signal });
    const live = await session.cache.read(await needsOf(binding, values), signal);
    const counterpart = binding.matched(planned.action, values, live, context);
    if (counterpart === undefined) throw new Error(`${binding.typeName}: the service acknowledged the ${planned.action.type}, but the resource is not in its listing`);
    // what was planned is kept exactly (terraform requires it); what only apply knew comes from live
    const state = binding.state(counterpart, heldOrLive(binding, values, binding.liveValues(counterpart), new Set(), { fillDefaulted: false }), values);
    hold(session, state);
    return state;
  }

  async function importState(session: ConvergeSession, id: string, signal: AbortSignal): Promise<Values> {
    const natural = binding.naturalImport?.(id);
    if (natural === undefined) return binding.importId(id);
    const counterpart = natural.find(await session.cache.read(await needsOf(binding, natural.values), signal));
    // the state's IDs from the live resource found; `read`, which terraform calls next, fills in the rest
    return binding.state(counterpart, Object.fromEntries(binding.fields.map((field) => [field.attribute, null])), natural.values);
  }

  const resource: ConvergeResourceType = {
    schema: binding.schema,

    validate({ config }) {
      const checked = checkedDocument(binding, config, {});
      return "loaded" in checked ? [] : checked.diagnostics;
    },

    async plan(request): Promise<PlanResult<Schema>> {
      const session = request.provider;
      if (request.action === "delete") return { diagnostics: await checkDelete(session, request.prior!, request.signal) };
      const config = request.config!;
      const prior = request.prior;
      hold(session, prior);
      const replacing = prior !== null && binding.identityAttributes.some((attribute) => isUnknown(config[attribute] ?? null) || (config[attribute] ?? null) !== (prior[attribute] ?? null));
      const diagnostics: Diagnostic[] = replacing ? await checkDelete(session, prior, request.signal) : [];
      const checked = checkedDocument(binding, config, { pin: prior !== null && !replacing ? prior : undefined });
      if (!("loaded" in checked)) return { diagnostics: [...diagnostics, ...checked.diagnostics] };
      if (!identityKnown(binding, config)) return { diagnostics };
      const planned = prior === null || replacing
        ? await planNew(session, checked.loaded, config, request.signal)
        : await planDocument(session, checked.loaded, { signal: request.signal });
      diagnostics.push(...planDiagnostics(binding, planned));
      if (!("action" in planned)) return { diagnostics };
      const adopts = (prior === null || replacing) && (planned.action.type === "update" || planned.action.type === "no-op");
      if (adopts && binding.mayAdopt !== false) {
        const counterpart = binding.matched(planned.action, config, planned.live);
        diagnostics.push(warningDiagnostic(
          `${binding.typeName}: adopts a live resource instead of creating one`,
          `The live ${counterpart === undefined ? "resource" : binding.describe(counterpart)} is the one this resource declares, as converge matches it; terraform will manage it from now on (import it to see its values first).`,
        ));
      }
      return { diagnostics, ...(request.planned ? { planned: withSentDefaults(binding, request.planned, config, planned.action) } : {}) };
    },

    async read({ provider: session, state, signal }) {
      hold(session, state);
      const live = await session.cache.read(await needsOf(binding, state), signal);
      // a state moved from a terraform_data holds a natural-key import ID until its first read
      const natural = typeof state.id === "string" ? binding.naturalImport?.(state.id) : undefined;
      const counterpart = natural === undefined ? binding.liveOf(state, live) : natural.find(live);
      if (counterpart === undefined) return null;
      const liveValues = binding.liveValues(counterpart);
      // an imported state holds only the identity: what else the document needs comes from live
      const held = Object.fromEntries(binding.fields.map((field) => {
        const value = state[field.attribute] ?? null;
        return [field.attribute, value === null && field.presence === "required" ? liveValues[field.attribute] ?? null : value];
      }));
      const checked = checkedDocument(binding, { ...state, ...held }, { pin: state });
      const planned = "loaded" in checked ? await planDocument(session, checked.loaded, { signal }) : undefined;
      const changed = planned && "action" in planned ? changedFieldsOf(planned.action) : new Set(binding.fields.map((field) => field.field));
      return binding.state(counterpart, heldOrLive(binding, held, liveValues, changed, { fillDefaulted: true }), state);
    },

    create: ({ provider: session, planned, config, signal }) => write(session, planned, config, undefined, signal),

    update: ({ provider: session, prior, planned, config, signal }) => {
      hold(session, prior);
      return write(session, planned, config, prior, signal);
    },

    async delete({ provider: session, prior, signal }) {
      hold(session, prior);
      if (undeletable !== undefined) return;
      const checked = checkedDocument(binding, prior, { pin: prior, ensure: "absent" });
      if (!("loaded" in checked)) throw new DiagnosticsError(checked.diagnostics);
      const planned = await planDocument(session, checked.loaded, { signal });
      if (!("action" in planned)) return;
      throwIfErrors(planDiagnostics(binding, planned, true));
      await applyAction(session, planned.action, { signal });
      // an acknowledged delete took it out of the cache; one the service answered 404 (gone already) did not
      const needs = await needsOf(binding, prior);
      if (binding.liveOf(prior, await session.cache.read(needs, signal)) !== undefined) session.cache.forget(needs);
    },

    importState: ({ provider: session, id, signal }) => importState(session, id, signal),

    /**
     * From a `terraform_data` whose input is a document of the kind (moved-from-terraform-data.ts):
     * the state an import of the document's import ID starts from, made without the service
     * (terraform moves before it configures the provider). A natural-key ID stays the state's `id`
     * until `read` finds the live resource it names.
     */
    async moveState(request) {
      const document = binding.importIdOf === undefined ? null : documentOfMovedState(binding.kind, binding.typeName, request);
      if (document === null) return null;
      const id = binding.importIdOf!(document);
      const natural = binding.naturalImport?.(id);
      const empty = Object.fromEntries(Object.keys(binding.schema.attributes).map((attribute) => [attribute, null]));
      return natural === undefined ? { ...empty, ...binding.importId(id) } : { ...empty, ...natural.values, id };
    },
  };
  return { typeName: binding.typeName, resource };
}

/** A converge kind's terraform resource under its type name (the name is written once, in the kind's binding). */
export interface KindResource {
  readonly typeName: string;
  readonly resource: ConvergeResourceType;
}

/** A kind's terraform resource: the runtime's resource type, which also takes state moved from a `terraform_data` (MoveResourceState). */
export type ConvergeResourceType = ResourceType<Schema, ConvergeSession> & MovableResource<Schema>;

/** The resources of kinds as a provider lists them: by type name, in the order given. */
export function resourcesByTypeName(resources: ReadonlyArray<KindResource>): Record<string, ConvergeResourceType> {
  return Object.fromEntries(resources.map(({ typeName, resource }) => [typeName, resource]));
}
