import type { DesiredStateProblem } from "../desired-state-error.js";
import type { LoadedDocument } from "../loaded-document.js";
import type { ReadKey } from "../read-key.js";
import type { ApiRef, Document } from "../schema.js";
import type { ProtocolType } from "../../contract/gateway.js";
import type { TerraformFacts } from "./terraform-facts.js";

/** A field a read key is made of; `optional` when the document may leave it out. */
export interface ReadKeyField {
  readonly path: "api" | "account" | `spec.${string}`;
  readonly optional?: boolean;
}

/** How API references are compared: as written (offline), or by the apiId they resolve to (at plan time). */
export type ApiKeyOf = (ref: ApiRef) => string;

/** All documents, for cross-document checks. */
export interface DocumentIndex {
  readonly documents: ReadonlyArray<LoadedDocument>;
  /** The key API references are compared by (see ApiKeyOf). */
  readonly apiKey: ApiKeyOf;
  /**
   * Whether the keys are resolved apiIds. Offline they are not: an apiId and a name may be the same
   * API, so a check that finds something missing only refuses when no reference of the other form could supply it.
   */
  readonly resolved: boolean;
  /** The protocol an `Api` document declares for an API key, if any. */
  declaredProtocol(apiKey: string): ProtocolType | undefined;
  /** A lookup table built once per index (models index the documents they cross-check against). */
  memo<T>(key: string, build: () => T): T;
}

/**
 * What is true of one resource kind offline, from its documents alone: identity, display name,
 * what it reads, and the checks against the other documents. The engine's half of a kind (reads,
 * plans, applies) lives in src/reconcile/kinds/ and builds on this one.
 */
export interface KindModel<D extends Document = Document> {
  readonly kind: D["kind"];
  /** Identity within the kind (duplicates, --target, addresses before API references are resolved). */
  identity(document: D, apiKey?: ApiKeyOf): string;
  /** Short name for --target KIND/NAME and messages. */
  displayName(document: D): string;
  /** Whether the document pins a live ID; pinned documents plan first, so that they claim it before natural-key matching. @default false */
  pinned?(document: D): boolean;
  /** What the document needs read to be compared (and the drift shard it belongs to). */
  readKey(document: D): ReadKey;
  /**
   * The fields readKey reads, so that a document's read key can be found in its text without
   * parsing the document (src/desired/read-key-scan.ts): a top-level field, or `spec.<field>`.
   */
  readonly readKeyFields: ReadonlyArray<ReadKeyField>;
  /**
   * The document that names only what selects the live resource (an `ensure: absent` of it deletes
   * that resource): what a cdktf stack's inventory records (src/desired/inventory.ts). Absent for
   * kinds converge never deletes (RegionOptIn, Api).
   */
  deletionIdentity?(document: D): Readonly<Record<string, unknown>>;
  /** Checks against the other documents, before any call. */
  crossCheck(document: LoadedDocument<D>, index: DocumentIndex): DesiredStateProblem[];
  /** Why converge never deletes documents of this kind, for people (kinds without deletionIdentity). */
  readonly undeletable?: string;
  /** The protocol a document declares for its API (checked offline against the API's other documents). */
  declaredProtocol?(document: D, apiKey: ApiKeyOf): { readonly apiKey: string; readonly protocolType: ProtocolType } | undefined;
  /** What the kind's terraform resource is made of, for kinds converge's provider has a resource of (not the Api, a data source). */
  readonly terraform?: TerraformFacts;
  /** The documents a document needs with it when `--target` selects it (a route's target integration). */
  dependencies?(document: D, documents: ReadonlyArray<LoadedDocument>): LoadedDocument[];
  /**
   * Whether two different identity documents of this kind may still name the same live resource
   * (a contact whose account one leaves implicit and the other names): such a removed one is kept.
   */
  maySelectSame?(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean;
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
