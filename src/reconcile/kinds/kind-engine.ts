import type { Clients } from "../../clients/index.js";
import type { DesiredStateProblem } from "../../desired/desired-state-error.js";
import type { LoadedDocument } from "../../desired/load.js";
import type { ApiRef, Document } from "../../desired/schema.js";
import type { ProtocolType } from "../../spec/gateway.js";
import type { ActionRequest, LiveNeed, LiveState, PlannedAction } from "../model.js";

/** All documents, for cross-document checks. */
export interface DocumentIndex {
  readonly documents: ReadonlyArray<LoadedDocument>;
  /** The protocol an `Api` document declares for an API reference key, if any. */
  declaredProtocol(apiRefKey: string): ProtocolType | undefined;
  /** A lookup table built once per index (handlers index the documents they cross-check against). */
  memo<T>(key: string, build: () => T): T;
}

/** What a handler's planning sees besides its own document. Planning never calls anything. */
export interface PlanContext {
  readonly live: LiveState;
  /** Pruning requested for every `Api` document (`--prune`). */
  readonly prune: boolean;
  /** The API a reference resolves to, or a problem message (not found, ambiguous name). */
  resolveApi(ref: ApiRef): { readonly apiId: string; readonly protocolType: ProtocolType | undefined } | { readonly problem: string };
  /** Marks a live route or integration as declared by a document (so that pruning leaves it alone). */
  claim(collection: "routes" | "integrations", apiId: string, id: string): void;
  isClaimed(collection: "routes" | "integrations", apiId: string, id: string): boolean;
  /** Records which live integration a logical name resolved to (`pending` when it will be created). */
  resolveIntegrationName(apiId: string, name: string, integrationId: string | "pending"): void;
  integrationIdOf(apiId: string, name: string): string | "pending" | undefined;
  /** A lookup table over live state built once per plan (like DocumentIndex.memo). */
  memo<T>(key: string, build: () => T): T;
}

/** What executing an action can use. */
export interface ApplyContext {
  readonly clients: Clients;
  /** `<apiId>/<logical name>` → integrationId, filled from the plan and by creates. */
  readonly integrationIds: Map<string, string>;
  readonly signal?: AbortSignal | undefined;
  /** Progress for people (stderr on a terminal); never required for correctness. */
  progress(message: string): void;
  /** How long to wait for a Region to leave ENABLING/DISABLING. @default 300000 */
  readonly regionSettleTimeoutMs: number;
  readonly regionPollIntervalMs: number;
  /** Attempts of one create after ambiguous failures, each preceded by a re-read. */
  readonly createAttempts: number;
}

export interface HandlerPlan {
  readonly actions: ReadonlyArray<PlannedAction>;
  readonly problems: ReadonlyArray<DesiredStateProblem>;
}

/**
 * One resource kind: its identity, what it reads, how it plans (pure), and how it applies its own
 * action requests. The registry lists the kinds; nothing else switches on kind names.
 */
export interface KindHandler<D extends Document = Document> {
  readonly kind: D["kind"];
  /** Planning order: kinds that others reference plan first (integrations before routes, Api last). */
  readonly planOrder: number;
  /** The action requests this handler executes. */
  readonly ops: ReadonlyArray<ActionRequest["op"]>;
  /** Identity within the kind, as written (API references unresolved): duplicates, sharding, matching. */
  identity(document: D): string;
  /** Short name for --target KIND/NAME and messages. */
  displayName(document: D): string;
  /** Whether the document pins a live ID; pinned documents plan first, so that they claim it before natural-key matching. @default false */
  pinned?(document: D): boolean;
  needs(document: D): LiveNeed[];
  /** Checks against the other documents, before any call. */
  crossCheck(document: LoadedDocument<D>, index: DocumentIndex): DesiredStateProblem[];
  plan(document: LoadedDocument<D>, context: PlanContext): HandlerPlan;
  execute(request: ActionRequest, context: ApplyContext): Promise<void>;
}

/** The key an API reference is compared by before it is resolved. */
export function apiRefKey(ref: ApiRef): string {
  return typeof ref === "string" ? ref : `name:${ref.name}`;
}

export function describeApiRef(ref: ApiRef): string {
  return typeof ref === "string" ? ref : `named ${JSON.stringify(ref.name)}`;
}

export function problemAt(document: LoadedDocument, path: ReadonlyArray<PropertyKey>, message: string): DesiredStateProblem {
  const location = document.locate(path);
  return { ...location, path: path.map(String).join("."), message };
}

/** Documents grouped by a key (documents without one are left out). */
export function groupBy(documents: ReadonlyArray<LoadedDocument>, keyOf: (loaded: LoadedDocument) => string | undefined): Map<string, LoadedDocument[]> {
  const groups = new Map<string, LoadedDocument[]>();
  for (const loaded of documents) {
    const key = keyOf(loaded);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(loaded);
    else groups.set(key, [loaded]);
  }
  return groups;
}

