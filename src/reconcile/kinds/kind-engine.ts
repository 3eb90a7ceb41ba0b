import type { z } from "zod";
import type { AcknowledgedWrite, Clients } from "../../clients/index.js";
import type { DesiredStateProblem, SourceLocation } from "../../desired/desired-state-error.js";
import type { KindModel } from "../../desired/kinds/kind-model.js";
import type { LoadedDocument } from "../../desired/loaded-document.js";
import type { AccountKey } from "../../desired/read-key.js";
import type { AnyDocument, ApiRef, Document } from "../../desired/schema.js";
import type { ProtocolType } from "../../contract/gateway.js";
import type { LiveKey, ReadonlyLiveKeySet } from "../live-keys.js";
import type { ActionRequest, FieldChange, LiveApi, LiveNeed, LiveState, PlannedAction } from "../model.js";
import type { Progress } from "../progress.js";

/** How a plan is made (src/reconcile/plan.ts); the kinds read their own settings from it (PlanContext.options). */
export interface PlanOptions {
  /** Prune every API an `Api` document declares, as if each said `prune: true`. */
  readonly prune?: boolean;
  /**
   * Repair identical twins of a declared integration in every API (`--repair-twins`); without it,
   * only in APIs this plan prunes. See integration-twins.ts.
   */
  readonly repairTwins?: boolean;
  /** Never plan a twin repair: twins stay an ambiguous match (drift reports what is, and never writes). */
  readonly refuseTwins?: boolean;
  /**
   * `ensure: absent` documents of resources that were declared before and are not any more (a cdktf
   * stack's previous inventory, src/desired/inventory.ts). Each plans a delete, after everything the
   * documents plan, and only of a live resource no document claims (the same resource named another
   * way, say by its API's name instead of its apiId, is kept); one whose API is gone has nothing to delete.
   */
  readonly removed?: ReadonlyArray<LoadedDocument>;
  /**
   * Live resources another source manages (a terraform state's, `--state`): pruning never deletes
   * them. They are not claims: a document still matches them (and drift reports both claimants).
   */
  readonly managedElsewhere?: ReadonlyLiveKeySet;
}

/** What a kind's planning sees besides its own document. Planning never calls anything. */
export interface PlanContext {
  readonly live: LiveState;
  /** The options plan was called with (kinds read their own settings from them). */
  readonly options: PlanOptions;
  /** Pruning requested for every `Api` document (`--prune`). */
  readonly prune: boolean;
  /** The API a reference resolves to, or a problem message (not found, ambiguous name). */
  resolveApi(ref: ApiRef): { readonly apiId: string; readonly protocolType: ProtocolType | undefined } | { readonly problem: string };
  /** Marks a live route or integration as declared by a document (so that pruning leaves it alone). */
  claim(collection: ClaimCollection, apiId: string, id: string): void;
  isClaimed(collection: ClaimCollection, apiId: string, id: string): boolean;
  /**
   * Notes a live resource the document being planned declares, by its key (src/reconcile/live-keys.ts):
   * what drift compares across sources. `claim` notes the routes and integrations it claims; kinds
   * that claim nothing (contacts, Regions, APIs) declare their live resource when it exists.
   */
  declare(key: LiveKey): void;
  /**
   * State a kind keeps for the length of one plan, created once per key on first use: a lookup
   * table over live state, or what planning one document records for another's (as ApplyContext.state).
   */
  state<T>(key: string, create: () => T): T;
  /** The deletes of every live child of an API (route, integration) no document claimed, children others reference last. */
  unclaimed(api: LiveApi, why: PruneReason): PlannedAction[];
  /** Whether a document of this plan prunes the API (an owning kind's `prunes`: `kind: Api` with prune, or --prune). */
  prunes(apiId: string): boolean;
}

/**
 * A document as it is written (defaults not applied), ready to be rendered as YAML: what a kind's
 * export returns (src/reconcile/export.ts). Every kind of the document schemas is one of its members.
 */
export type ExportedDocument = z.input<typeof AnyDocument>;

/** The collection of an API whose live items documents claim (each child kind names its own: "routes"). */
export type ClaimCollection = string;

/** A live item a document declares (pruning and the deletes of removed documents leave it alone). */
export interface Claim {
  readonly collection: ClaimCollection;
  readonly apiId: string;
  readonly id: string;
}

/** How an apply runs (src/reconcile/apply.ts); the kinds read their own settings from it (ApplyContext.options). */
export interface ApplyOptions {
  /** Actions in flight at once within a phase. @default 10 */
  readonly parallelism?: number;
  readonly signal?: AbortSignal | undefined;
  /**
   * Once aborted (an interrupt: Ctrl-C), no further action starts: those under way finish, and those
   * not started end `skipped`. Unlike `signal`, it never cuts a write off in flight, whose outcome
   * would then be unknown.
   */
  readonly stop?: AbortSignal | undefined;
  /** Notices for people: what apply had to do besides the plan (adopting a twin, waiting for a Region). */
  readonly notice?: (message: string) => void;
  /** Counts the writes: every create, update and delete, done or failed. */
  readonly progress?: Progress | undefined;
  readonly regionSettleTimeoutMs?: number;
  readonly regionPollIntervalMs?: number;
  /**
   * Attempts of one create whose answers are lost (each after re-reading, so a create never
   * duplicates; the transport never retries creates itself). @default the transport's default maxAttempts
   */
  readonly createAttempts?: number;
  /**
   * After each phase, settle what it created against twins other runs created at the same time
   * (kinds' `settle`). Off where each live resource is held by its own ID, as in terraform's state:
   * there two identical integrations are two resources, not twins. @default true
   */
  readonly settleCreated?: boolean;
}

/** What executing an action can use. */
export interface ApplyContext {
  readonly clients: Clients;
  readonly signal?: AbortSignal | undefined;
  /** A notice for people (what apply had to do besides the plan: adopting, waiting); never required for correctness. */
  notice(message: string): void;
  /** Attempts of one create after ambiguous failures, each preceded by a re-read. */
  readonly createAttempts: number;
  /** The options apply was called with (kinds read their own settings from them). */
  readonly options: ApplyOptions;
  /** State a kind keeps for the length of one apply (created once per key, on first use). */
  state<T>(key: string, create: () => T): T;
}

/** The actions a document plans, and the problems only live state shows. */
export interface KindPlan {
  readonly actions: ReadonlyArray<PlannedAction>;
  readonly problems: ReadonlyArray<DesiredStateProblem>;
}

/** What the protections see: live state, and every action planned (protections.ts). */
export interface ProtectionContext {
  readonly live: LiveState;
  readonly actions: ReadonlyArray<PlannedAction>;
  /** A lookup table built once per plan. */
  memo<T>(key: string, build: () => T): T;
}

/** A create whose answer later work depends on, and what failed in settling it (e.g. twins another run created). */
export interface SettlementFailure {
  readonly address: string;
  readonly error: string;
}

/** A live API, with its protocol known, as export reads it. */
export type ExportableApi = LiveApi & { readonly protocolType: ProtocolType };

/** The collections of live state a read fills in. */
export type LiveCollections = Pick<LiveState, "apis" | "contacts" | "regions">;

/**
 * How one type of read key is read (src/reconcile/live-reader.ts reads every need through the
 * source of its type): the reads one need makes, as progress counts them (a get, or a listing with
 * all its pages), what it reads for people, and the read itself, which calls `readDone` after each
 * read it finishes and answers its part of live state (nothing when the thing does not exist).
 */
export interface ReadKeySource<N extends LiveNeed> {
  count(need: N): number;
  describe(need: N): string;
  read(need: N, io: { readonly clients: Clients; readonly signal?: AbortSignal | undefined; readDone(): void }): Promise<Partial<LiveCollections>>;
  /**
   * What a write the service acknowledged (the clients' WriteListener) makes of what `read`
   * answered for this need: the part of live state as it stands after the write, `"reread"` when
   * only a new read can tell, or `undefined` when the write does not touch it. Lets a copy of live
   * state follow its own process's writes without reading again (the provider, docs/manual/terraform-provider.md).
   */
  afterWrite(need: N, read: Partial<LiveCollections>, write: AcknowledgedWrite): Partial<LiveCollections> | "reread" | undefined;
}

/** The core of one resource kind's engine: what it reads, how it plans (pure), how it applies its requests. */
export interface KindEngineCore<D extends Document, R extends ActionRequest> {
  readonly model: KindModel<D>;
  /** Planning order: kinds that others reference plan first (integrations before routes, Api last). */
  readonly planOrder: number;
  /** The action requests this engine executes. */
  readonly ops: ReadonlyArray<R["op"]>;
  /** The reads planning needs. @default the model's read key */
  needs?(document: D): LiveNeed[];
  plan(document: LoadedDocument<D>, context: PlanContext): KindPlan;
  execute(request: R, context: ApplyContext): Promise<void>;
}

/** An `Api`-like kind: the API whose undeclared routes and integrations a document prunes, if any. */
export interface KindWithOwnership<D extends Document> {
  prunes(document: LoadedDocument<D>, context: PlanContext): string | undefined;
}

/**
 * A child of an API (routes, integrations): the deletes of its live items that no document claimed,
 * for an `Api` document that prunes the API (which adds the source and the reason).
 */
export interface KindWithPruning {
  unclaimed(api: LiveApi, context: PlanContext, why: PruneReason): PlannedAction[];
}

/** Where a prune comes from and why, for the deletes it plans. */
export interface PruneReason {
  readonly source: SourceLocation;
  readonly reason: string;
}

/** A planned action and the document that planned it (by reference: sources other than files need not place their documents apart). */
export interface DocumentAction {
  readonly action: PlannedAction;
  readonly document: LoadedDocument;
}

/** A kind that repairs what planning recorded (identical twins), once every document is planned: each repair with the document that asked for it. */
export interface KindWithRepairs {
  repairs(planned: ReadonlyArray<PlannedAction>, context: PlanContext): DocumentAction[];
}

/** A kind whose actions the protections may refuse: the reason, or undefined to let it through. */
export interface KindWithProtections<R extends ActionRequest> {
  refusal(request: R, action: PlannedAction, context: ProtectionContext): string | undefined;
}

/** A kind that deletes: what a delete request removes, for people, and the claim a document may hold on it. */
export interface KindWithDeletes<R extends ActionRequest> {
  deleted(request: R): { readonly description: string; readonly claim?: Claim | undefined } | undefined;
}

/**
 * A kind whose actions name resources other actions of the same apply create: `provides` the key an
 * action creates (`<apiId>/<logical name>`), `awaits` the one it needs (drift reports a route whose
 * integration could not be compared as unknown); `seed` records what the plan already knows before
 * apply runs, `settle` checks what a phase created (twins another run made) after it.
 */
export interface KindWithReferences<R extends ActionRequest> {
  provides?(request: R): string | undefined;
  awaits?(request: R): { readonly key: string; readonly name: string } | undefined;
  seed?(request: R, context: ApplyContext): void;
  settle?(context: ApplyContext, limit: <T>(task: () => Promise<T>) => Promise<T>): Promise<SettlementFailure[]>;
}

/** A kind that `converge export` writes: its documents of one API, or of one account. */
export interface KindWithExport {
  /** Where its documents stand in an exported file, among the other kinds' (lower first). */
  readonly exportOrder: number;
  /** The documents of an API, in the file's order; `commented`: service-managed ones, written as comments. */
  exportApi?(api: ExportableApi, names: ReadonlyMap<string, string>): { readonly documents: ExportedDocument[]; readonly commented?: ExportedDocument[] };
  /** What it reads of an account to export it. */
  exportNeeds?(account: AccountKey): LiveNeed[];
  /** The documents of an account, and lines for the file's header. */
  exportAccount?(account: AccountKey, live: LiveState): { readonly documents: ExportedDocument[]; readonly header: string[] };
  /** Paths of its exported documents written in flow style (`{...}` on one line). */
  readonly flowPaths?: ReadonlyArray<ReadonlyArray<string>>;
  /** How `converge export --format terraform` writes its documents (src/reconcile/render-export-terraform.ts). */
  readonly terraformExport?: TerraformExport;
  /** How `converge export --from-drift` keeps, of a child of an API, only the items a drift report lists as unmanaged. */
  readonly unmanagedChildren?: UnmanagedChildren;
}

/**
 * A child of an API (routes, integrations) as a drift report names its live items that no document
 * declares (the identities of its `unclaimed`), so that `converge export --from-drift`
 * (src/reconcile/export-from-drift.ts) writes those items and no other.
 */
export interface UnmanagedChildren {
  /** The unmanaged identity of each of the API's live items of this kind, in listing order. */
  identities(api: LiveApi): string[];
  /** The API with only those of its items of this kind whose unmanaged identity is in `identities`; other kinds' items as they are. */
  keep(api: ExportableApi, identities: ReadonlySet<string>): ExportableApi;
}

/**
 * A kind's documents in terraform: the API a file's other resources take `api_id` from (a data
 * source), or one resource of converge's provider per document with the import block of its live object.
 */
export type TerraformExport = TerraformApiExport | TerraformResourceExport;

/** The document is an API: the file's `data` source of this type, looked up by `api_id`. */
export interface TerraformApiExport {
  readonly dataSource: string;
}

/** The document is a resource of converge's provider (src/provider/resources/), of the kind's type (resourceTypeOf of src/desired/terraform-attributes.ts). */
export interface TerraformResourceExport {
  /** The spec's fields as the wire has them (their attributes and values follow src/desired/terraform-attributes.ts); spec entries not among them (pins) are no attributes. */
  readonly fields: Readonly<Record<string, z.ZodType>>;
  /** The service's names of fields the document names otherwise. */
  readonly serviceNames?: Readonly<Record<string, string>>;
  /** The resource's name in configuration, before it is made unique. */
  label(document: ExportedDocument): string;
  /** The ID the provider imports the live object by (`API_ID/ROUTE_ID`, `ACCOUNT_ID/TYPE`, …); undefined when live has no such object. */
  importId(document: ExportedDocument, live: LiveState): string | undefined;
  /** The logical name another document of the same API refers to this one by (an integration's `name`). */
  referenceName?(document: ExportedDocument): string | undefined;
  /**
   * A field whose value names another exported resource (a route's target naming an integration):
   * that resource's type, its logical name, the attribute referred to, and the text before it.
   */
  reference?(field: string, value: unknown): { readonly type: string; readonly name: string; readonly attribute: string; readonly prefix: string } | undefined;
}

/**
 * The engine half of one resource kind: its core and the optional capabilities it has (in the
 * style of terraform-plugin-framework's ResourceWithImportState). It builds on the kind's model
 * (src/desired/kinds/), which knows the document's identity and its offline checks. The registry
 * lists the kinds; shared code calls capabilities and never switches on kind or operation names.
 */
/** A live resource of a kind as drift counts it over a whole scope (`--unmanaged all`, coverage). */
export interface LiveResource {
  /** Its key (src/reconcile/live-keys.ts), as the documents that declare it note it. */
  readonly key: LiveKey;
  /** Its report address and identity, as the kind's plans write them. */
  readonly address: string;
  readonly identity: string;
  /** The service manages it (a quick-created route or integration): never unmanaged, whoever declares it. */
  readonly serviceManaged: boolean;
}

/** A kind whose live resources drift can list from what it read (`--unmanaged all`). */
export interface KindWithLiveResources {
  liveResources(live: LiveState): LiveResource[];
}

export type KindEngine<D extends Document = Document, R extends ActionRequest = ActionRequest> = KindEngineCore<D, R>
  & Partial<KindWithOwnership<D> & KindWithPruning & KindWithRepairs & KindWithProtections<R> & KindWithDeletes<R> & KindWithReferences<R> & KindWithExport & KindWithLiveResources>;

/** The fields every action of one resource shares. */
export type ActionBase = Pick<PlannedAction, "kind" | "address" | "name" | "identity" | "source"> & { readonly phase?: number };

/** What a kind that matched its document to a live resource (or to none) decides with. */
export interface Decision<L> {
  readonly base: ActionBase;
  readonly ensure: "present" | "absent";
  /** The live resource the document matched, if any. */
  readonly live: L | undefined;
  /** Apply phases: of a no-op or update, of a create (default: `present`), of a delete. */
  readonly phases: { readonly present: number; readonly create?: number; readonly delete: number };
  /** The request that deletes the live resource (`ensure: absent`). */
  delete?(live: L): ActionRequest;
  /** The create, or a refusal, or problems only live state shows. */
  create(): Outcome;
  /** The changes from live to desired, the update that makes them (`unchanged`: the request a no-op records), or a refusal. */
  compare(live: L): Outcome;
}

/** A planned write with its field changes, or why it is refused, or the problems found. */
export type Outcome =
  | { readonly changes: ReadonlyArray<FieldChange>; readonly request?: ActionRequest | undefined; readonly unchanged?: ActionRequest | undefined }
  | { readonly refused: string }
  | { readonly problems: ReadonlyArray<DesiredStateProblem> };

/**
 * The decision every kind shares (ACK's `Sync`): absent and not live → nothing; absent and live →
 * delete; present and not live → create; present and live → nothing when no field differs, else
 * update. A kind supplies the matching, its diff rules and its requests.
 */
export function decide<L>(decision: Decision<L>): KindPlan {
  const { base, phases, live } = decision;
  const action = (fields: Omit<PlannedAction, keyof ActionBase> & { readonly phase: number }): KindPlan =>
    ({ problems: [], actions: [{ ...base, ...fields } as PlannedAction] });
  if (decision.ensure === "absent") {
    if (live === undefined || !decision.delete) return action({ type: "no-op", phase: phases.delete, changes: [] });
    return action({ type: "delete", phase: phases.delete, changes: [], reason: "ensure: absent", request: decision.delete(live) });
  }
  const outcome = live === undefined ? decision.create() : decision.compare(live);
  const phase = live === undefined ? phases.create ?? phases.present : phases.present;
  if ("problems" in outcome) return { actions: [], problems: outcome.problems };
  if ("refused" in outcome) return action({ type: "refused", phase: phases.present, changes: [], reason: outcome.refused });
  if (live === undefined) return action({ type: "create", phase, changes: outcome.changes, request: outcome.request });
  if (outcome.changes.length === 0) {
    const unchanged = outcome.unchanged;
    return action({ type: "no-op", phase, changes: outcome.changes, ...(unchanged ? { request: unchanged } : {}) });
  }
  return action({ type: "update", phase, changes: outcome.changes, request: outcome.request });
}

/** Changes that create every field of `body`, in its order. */
export function creationChanges(body: Readonly<Record<string, unknown>>): FieldChange[] {
  return Object.entries(body).map(([path, after]) => ({ path, before: null, after }));
}
