import type { DesiredStateProblem, SourceLocation } from "../desired/desired-state-error.js";
import { modelOf } from "../desired/kinds/registry.js";
import type { LoadedDocument } from "../desired/load.js";
import { readKeyText } from "../desired/read-key.js";
import type { DriftField, DriftResource } from "./drift-report.js";
import { engineForOp, needsOfDocument } from "./kinds/registry.js";
import { liveKeyOf, type LiveKey } from "./live-keys.js";
import type { LiveState, PlannedAction } from "./model.js";
import { plan } from "./plan.js";

/**
 * Drift outcomes: every resource in one outcome. It plans with pruning on and maps the plan: no-op
 * → in-sync, update → drifted, create → missing, a prune delete → unmanaged, refused → refused,
 * and a document that could not be compared (its read failed, its API does not exist, its natural
 * key is ambiguous) → unknown with the reason. Plan semantics are untouched: drift only reads them.
 */

/**
 * Every resource of `documents` (and every unmanaged one of the APIs they own) in one outcome. Pure:
 * documents whose reads failed are unknown; the others are planned with pruning on, and the plan's
 * actions and problems are mapped back to the documents that produced them (actions by their source,
 * problems by the document whose text holds their location).
 */
export function classifyDrift(documents: ReadonlyArray<LoadedDocument>, live: LiveState, failures: ReadonlyMap<string, string> = new Map()): DriftResource[] {
  return classifyDocuments(documents, live, failures).resources;
}

/** What classifyDocuments found besides the resources: what each document declares, and what pruning reports. */
export interface ClassifiedDocuments {
  /** Every resource in one outcome; the entry of a document's own resource is the one at `entryOf`. */
  readonly resources: DriftResource[];
  /** The index in `resources` of each compared document's own entry. */
  readonly entryOf: ReadonlyMap<LoadedDocument, number>;
  /** The live resources each document declares (src/reconcile/live-keys.ts). */
  readonly declared: ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>;
  /** The live resources reported as undeclared children of owned APIs, by key, with their outcome (unmanaged, refused or unknown). */
  readonly undeclared: ReadonlyMap<LiveKey, DriftResource["outcome"]>;
}

/**
 * classifyDrift, with what drift over several sources needs: the entries by document, the live
 * resources each document declares, and those pruning found; `managedElsewhere`: live resources
 * other sources manage, never reported as undeclared here.
 */
export function classifyDocuments(
  documents: ReadonlyArray<LoadedDocument>,
  live: LiveState,
  failures: ReadonlyMap<string, string> = new Map(),
  options: { readonly managedElsewhere?: ReadonlySet<LiveKey> } = {},
): ClassifiedDocuments {
  const unknown = new Map<LoadedDocument, string>();
  for (const loaded of documents) {
    const reasons = needsOfDocument(loaded.document).map((need) => failures.get(readKeyText(need))).filter((reason): reason is string => reason !== undefined);
    if (reasons.length > 0) unknown.set(loaded, reasons.join("; "));
  }
  const comparable = documents.filter((loaded) => !unknown.has(loaded));
  // twins stay a finding (an ambiguous match): drift reports what is; apply repairs them
  const { plan: planned, problems, declared } = plan(comparable, live, { prune: true, refuseTwins: true, managedElsewhere: options.managedElsewhere });
  const documentAt = documentLocator(comparable);
  for (const problem of problems) {
    const loaded = documentAt(problem);
    if (!loaded) throw new Error(`drift: the plan reported a problem outside every document (${problem.file}:${problem.line}: ${problem.message})`);
    const reason = `${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
    unknown.set(loaded, unknown.has(loaded) ? `${unknown.get(loaded)!}; ${reason}` : reason);
  }

  // APIs (and kinds) with a document that could not be compared: whether a live resource of that kind is declared there is unknown
  const undecided = new Map<string, LoadedDocument>();
  for (const loaded of unknown.keys()) for (const apiId of apiIdsOf(loaded, live)) undecided.set(`${apiId}/${loaded.document.kind}`, loaded);
  const referencesOf = (action: PlannedAction) => (action.request ? engineForOp(action.request.op) : undefined);
  const created = new Set(planned.actions.flatMap((action) => referencesOf(action)?.provides?.(action.request!) ?? []));

  const bySource = new Map(comparable.map((loaded) => [sourceKey(loaded.source), loaded] as const));
  const resources: DriftResource[] = [];
  const entryOf = new Map<LoadedDocument, number>();
  const undeclared = new Map<LiveKey, DriftResource["outcome"]>();
  for (const action of planned.actions) {
    const loaded = action.source ? bySource.get(sourceKey(action.source)) : undefined;
    if (!loaded) throw new Error(`drift: the planned action ${action.address} has no document`);
    const own = loaded.document.kind === action.kind;
    if (own) entryOf.set(loaded, resources.length);
    const resource = { address: action.address, kind: action.kind, identity: action.identity, source: action.source ?? null };
    if (!own) {
      const claim = action.request ? referencesOf(action)?.deleted?.(action.request)?.claim : undefined;
      // an undeclared resource of an API an Api document owns: what pruning would delete, or what the protections keep
      const blocker = apiIdsOf(loaded, live).map((apiId) => undecided.get(`${apiId}/${action.kind}`)).find((other) => other !== undefined);
      if (blocker) {
        resources.push({
          ...resource,
          outcome: "unknown",
          fields: [],
          reason: `not declared by a compared document, but the ${blocker.document.kind} document at ${where(blocker.source)} `
            + `could not be compared (${unknown.get(blocker)}), and it may declare this one`,
        });
      } else if (action.type === "refused") {
        resources.push({
          ...resource,
          outcome: "refused",
          fields: [],
          reason: `not declared, in an API the Api document at ${where(loaded.source)} owns, but protected: ${action.reason ?? "refused"}`,
        });
      } else {
        resources.push({
          ...resource,
          outcome: "unmanaged",
          fields: [],
          reason: `live but not declared, in an API the Api document at ${where(loaded.source)} owns`,
        });
      }
      if (claim !== undefined) undeclared.set(liveKeyOf(claim.collection, claim.apiId, claim.id), resources.at(-1)!.outcome);
      continue;
    }
    const awaited = referencesOf(action)?.awaits?.(action.request!);
    if (awaited !== undefined && !created.has(awaited.key)) {
      resources.push({
        ...resource,
        outcome: "unknown",
        fields: [],
        reason: `its target, integration ${JSON.stringify(awaited.name)}, could not be compared, so neither can the route's target`,
      });
      continue;
    }
    resources.push({ ...resource, ...outcomeOf(action, awaited?.name) });
  }
  for (const loaded of documents) {
    if (entryOf.has(loaded)) continue;
    entryOf.set(loaded, resources.length);
    const identity = modelOf(loaded.document.kind).identity(loaded.document);
    const reason = unknown.get(loaded);
    // a document that plans no action of its own and has no problem (an Api document) is in sync
    resources.push({
      address: `${loaded.document.kind}/${identity}`,
      kind: loaded.document.kind,
      identity,
      outcome: reason === undefined ? "in-sync" : "unknown",
      fields: [],
      reason: reason ?? null,
      source: loaded.source,
    });
  }
  return { resources, entryOf, declared, undeclared };
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

function sourceKey(source: SourceLocation): string {
  return `${source.file}\u0000${source.line}\u0000${source.column}`;
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

/** The document whose text holds a location: the last one starting at or before it, in its file. */
function documentLocator(documents: ReadonlyArray<LoadedDocument>): (location: DesiredStateProblem) => LoadedDocument | undefined {
  const byFile = new Map<string, LoadedDocument[]>();
  for (const loaded of documents) {
    const list = byFile.get(loaded.source.file);
    if (list) list.push(loaded);
    else byFile.set(loaded.source.file, [loaded]);
  }
  for (const list of byFile.values()) list.sort((a, b) => a.source.line - b.source.line || a.source.column - b.source.column);
  const before = (a: SourceLocation, b: SourceLocation) => a.line < b.line || (a.line === b.line && a.column <= b.column);
  return (location) => {
    const list = byFile.get(location.file) ?? [];
    let found: LoadedDocument | undefined;
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (before(list[middle]!.source, location)) {
        found = list[middle];
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  };
}
