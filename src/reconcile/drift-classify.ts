import type { SourceLocation } from "../desired/desired-state-error.js";
import { modelOf } from "../desired/kinds/registry.js";
import type { LoadedDocument } from "../desired/load.js";
import { readKeyText } from "../desired/read-key.js";
import { sourceOfDocument, type DriftField, type DriftResource } from "./drift-report.js";
import { engineForOp, needsOfDocument } from "./kinds/registry.js";
import { LiveKeyMap, liveKeyOf, type LiveKey, type ReadonlyLiveKeySet } from "./live-keys.js";
import type { LiveState, PlannedAction } from "./model.js";
import { plan, type PlanResult } from "./plan.js";

/**
 * Drift outcomes: every resource in one outcome. It plans with pruning on and maps the plan: no-op
 * → in-sync, update → drifted, create → missing, a prune delete → unmanaged, refused → refused,
 * and a document that could not be compared (its read failed, its API does not exist, its natural
 * key is ambiguous) → unknown with the reason. Plan semantics are untouched: drift only reads them.
 */

/**
 * Every resource of `documents` (and every unmanaged one of the APIs they own) in one outcome. Pure:
 * documents whose reads failed are unknown; the others are planned with pruning on, and the plan's
 * actions and problems are mapped back to the documents that produced them (by reference, as the
 * plan gives them: PlanResult.actionDocuments, problemDocuments).
 */
export function classifyDrift(documents: ReadonlyArray<LoadedDocument>, live: LiveState, failures: ReadonlyMap<string, string> = new Map()): DriftResource[] {
  return classifyDocuments(documents, live, failures).resources;
}

/** What classifyDocuments found besides the resources: the document of each entry, what each document declares, and what pruning reports. */
export interface ClassifiedDocuments {
  /** Every resource in one outcome; the entry of a document's own resource is the one at `entryOf`. */
  readonly resources: DriftResource[];
  /** The document each entry of `resources` came from, by index (the `Api` document that owns an undeclared child). */
  readonly documentOf: ReadonlyArray<LoadedDocument>;
  /** The index in `resources` of each compared document's own entry. */
  readonly entryOf: ReadonlyMap<LoadedDocument, number>;
  /** The live resources each document declares (src/reconcile/live-keys.ts). */
  readonly declared: ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>;
  /** The live resources reported as undeclared children of owned APIs, by key, with their outcome (unmanaged, refused or unknown). */
  readonly undeclared: LiveKeyMap<DriftResource["outcome"]>;
}

/**
 * classifyDrift, with what drift over several sources needs: the entries by document, the live
 * resources each document declares, and those pruning found; `managedElsewhere`: live resources
 * other sources manage, never reported as undeclared here. Each entry's source is its document's
 * (`sourceOfDocument`), found by reference: the plan says which document each action and problem came from.
 */
export function classifyDocuments(
  documents: ReadonlyArray<LoadedDocument>,
  live: LiveState,
  failures: ReadonlyMap<string, string> = new Map(),
  options: { readonly managedElsewhere?: ReadonlyLiveKeySet } = {},
): ClassifiedDocuments {
  const unknown = unreadableDocuments(documents, failures);
  const comparable = documents.filter((loaded) => !unknown.has(loaded));
  // twins stay a finding (an ambiguous match): drift reports what is; apply repairs them
  const planned = plan(comparable, live, { prune: true, refuseTwins: true, managedElsewhere: options.managedElsewhere });
  for (const problem of planned.problems) {
    const loaded = planned.problemDocuments.get(problem);
    if (!loaded) throw new Error(`drift: the plan reported a problem outside every document (${problem.file}:${problem.line}: ${problem.message})`);
    const reason = `${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
    unknown.set(loaded, unknown.has(loaded) ? `${unknown.get(loaded)!}; ${reason}` : reason);
  }
  const entries = new DriftEntries();
  classifyActions(planned, live, unknown, entries);
  for (const loaded of documents) {
    if (entries.entryOf.has(loaded)) continue;
    const identity = modelOf(loaded.document.kind).identity(loaded.document);
    const reason = unknown.get(loaded);
    // a document that plans no action of its own and has no problem (an Api document) is in sync
    entries.add(loaded, true, {
      address: `${loaded.document.kind}/${identity}`,
      kind: loaded.document.kind,
      identity,
      outcome: reason === undefined ? "in-sync" : "unknown",
      fields: [],
      reason: reason ?? null,
      source: sourceOfDocument(loaded),
    });
  }
  return { resources: entries.resources, documentOf: entries.documentOf, entryOf: entries.entryOf, declared: planned.declared, undeclared: entries.undeclared };
}

/** The entries of one classification as they are found, each with its document. */
class DriftEntries {
  readonly resources: DriftResource[] = [];
  readonly documentOf: LoadedDocument[] = [];
  readonly entryOf = new Map<LoadedDocument, number>();
  readonly undeclared = new LiveKeyMap<DriftResource["outcome"]>();

  /** Adds an entry of `loaded`: its own resource's, or (not `own`) an undeclared child of an API it owns. */
  add(loaded: LoadedDocument, own: boolean, resource: DriftResource): void {
    if (own) this.entryOf.set(loaded, this.resources.length);
    this.resources.push(resource);
    this.documentOf.push(loaded);
  }
}

/** The documents whose reads failed, each with the reasons. */
function unreadableDocuments(documents: ReadonlyArray<LoadedDocument>, failures: ReadonlyMap<string, string>): Map<LoadedDocument, string> {
  const unknown = new Map<LoadedDocument, string>();
  for (const loaded of documents) {
    const reasons = needsOfDocument(loaded.document).map((need) => failures.get(readKeyText(need))).filter((reason): reason is string => reason !== undefined);
    if (reasons.length > 0) unknown.set(loaded, reasons.join("; "));
  }
  return unknown;
}

/** Every planned action as an entry of the document that planned it: its own resource, or an undeclared child of an API it owns. */
function classifyActions(planned: PlanResult, live: LiveState, unknown: ReadonlyMap<LoadedDocument, string>, entries: DriftEntries): void {
  // APIs (and kinds) with a document that could not be compared: whether a live resource of that kind is declared there is unknown
  const undecided = new Map<string, LoadedDocument>();
  for (const loaded of unknown.keys()) for (const apiId of apiIdsOf(loaded, live)) undecided.set(`${apiId}/${loaded.document.kind}`, loaded);
  const created = new Set(planned.plan.actions.flatMap((action) => referencesOf(action)?.provides?.(action.request!) ?? []));
  for (const action of planned.plan.actions) {
    const loaded = planned.actionDocuments.get(action);
    if (!loaded) throw new Error(`drift: the planned action ${action.address} has no document`);
    const resource = { address: action.address, kind: action.kind, identity: action.identity, source: sourceOfDocument(loaded) };
    if (loaded.document.kind !== action.kind) {
      const blocker = apiIdsOf(loaded, live).map((apiId) => undecided.get(`${apiId}/${action.kind}`)).find((other) => other !== undefined);
      entries.add(loaded, false, { ...resource, ...undeclaredOutcome(action, loaded, blocker && { blocker, reason: unknown.get(blocker)! }) });
      const claim = action.request ? referencesOf(action)?.deleted?.(action.request)?.claim : undefined;
      if (claim !== undefined) entries.undeclared.set(liveKeyOf(claim.collection, claim.apiId, claim.id), entries.resources.at(-1)!.outcome);
      continue;
    }
    const awaited = referencesOf(action)?.awaits?.(action.request!);
    if (awaited !== undefined && !created.has(awaited.key)) {
      entries.add(loaded, true, {
        ...resource,
        outcome: "unknown",
        fields: [],
        reason: `its target, integration ${JSON.stringify(awaited.name)}, could not be compared, so neither can the route's target`,
      });
      continue;
    }
    entries.add(loaded, true, { ...resource, ...outcomeOf(action, awaited?.name) });
  }
}

function referencesOf(action: PlannedAction) {
  return action.request ? engineForOp(action.request.op) : undefined;
}

/**
 * An undeclared resource of an API an Api document (`owner`) owns: what pruning would delete, or
 * what the protections keep; unknown when a document that could not be compared (`undecided`) may declare it.
 */
function undeclaredOutcome(
  action: PlannedAction,
  owner: LoadedDocument,
  undecided: { readonly blocker: LoadedDocument; readonly reason: string } | undefined,
): Pick<DriftResource, "outcome" | "fields" | "reason"> {
  if (undecided) {
    return {
      outcome: "unknown",
      fields: [],
      reason: `not declared by a compared document, but the ${undecided.blocker.document.kind} document at ${where(undecided.blocker.source)} `
        + `could not be compared (${undecided.reason}), and it may declare this one`,
    };
  }
  if (action.type === "refused") {
    return {
      outcome: "refused",
      fields: [],
      reason: `not declared, in an API the Api document at ${where(owner.source)} owns, but protected: ${action.reason ?? "refused"}`,
    };
  }
  return { outcome: "unmanaged", fields: [], reason: `live but not declared, in an API the Api document at ${where(owner.source)} owns` };
}

function outcomeOf(action: PlannedAction, pendingTarget: string | undefined): Pick<DriftResource, "outcome" | "fields" | "reason"> {
  // a target that names an integration still to be created: the document's own words, not apply's placeholder
  const fields = (): DriftField[] => action.changes.map((change) => ({
    path: change.path,
    desired: pendingTarget !== undefined && change.path === "target" ? { integration: pendingTarget } : change.after,
    live: change.before ?? null,
  }));
  switch (action.type) {
    case "no-op":
      return { outcome: "in-sync", fields: [], reason: null };
    case "update":
      return { outcome: "drifted", fields: fields(), reason: null };
    case "create":
      return { outcome: "missing", fields: fields(), reason: null };
    case "refused":
      return { outcome: "refused", fields: [], reason: action.reason ?? null };
    case "delete":
      // only `ensure: absent` makes a document plan a delete of its own resource
      return { outcome: "drifted", fields: [{ path: "ensure", desired: "absent", live: "present" }], reason: "declared ensure: absent, but it exists" };
  }
}

function where(source: SourceLocation): string {
  return `${source.file}:${source.line}`;
}

/** The API IDs a document's API reference resolves to in live state. */
function apiIdsOf(loaded: LoadedDocument, live: LiveState): string[] {
  return needsOfDocument(loaded.document).flatMap((need) => {
    if (need.type !== "api") return [];
    return typeof need.ref === "string" ? [need.ref] : [...(live.apiIdsByName[need.ref.name] ?? [])];
  });
}
