import type { LoadedDocument } from "../desired/loaded-document.js";
import { classifyDocuments, type ClassifiedDocuments } from "./drift-classify.js";
import { describeSource, sourceOfDocument, type DriftField, type DriftResource, type DriftSource } from "./drift-report.js";
import { allEngines } from "./kinds/registry.js";
import { isApiKey, LiveKeyMap, LiveKeySet, type LiveKey } from "./live-keys.js";
import type { LiveState } from "./model.js";
import { plan } from "./plan.js";
import type { UnmanagedScope } from "./unmanaged-scope.js";

/**
 * Drift over every source of "managed" at once (docs/manual/drift.md, "Sources"): the desired-state
 * documents (`-f`, `--from-synth`), the converge resources of terraform states (`--state`), each
 * compared with what its state last recorded, and the identities cdktf stacks keep in their
 * inventories (which only claim). A live resource two of them claim is a conflict; what a state
 * manages is never unmanaged; `--unmanaged all` reports every live resource in scope no source
 * manages; coverage is managed ÷ live in scope.
 */

export interface DriftSources {
  /** The desired state's documents (`-f` and `--from-synth`), compared and cross-checked as one. */
  readonly documents: ReadonlyArray<LoadedDocument>;
  /** The converge resources of terraform states, each the document the provider plans for it (pinned by its ID, with its `terraform` origin). */
  readonly stateDocuments?: ReadonlyArray<LoadedDocument>;
  /** Identities that only claim (a cdktf stack's inventory), as `ensure: absent` documents. */
  readonly claims?: ReadonlyArray<LoadedDocument>;
  /** @default "owned" */
  readonly scope?: UnmanagedScope;
  /** terraform's attribute of a document field path (`authorizationScopes` → `authorization_scopes`), for the documents with a `terraform` origin. */
  readonly attributeOf?: (document: LoadedDocument, path: string) => string;
}

export interface ClassifiedEstate {
  readonly resources: DriftResource[];
  readonly coverage: { readonly managed: number; readonly live: number };
}

/**
 * Every source's resources in one outcome, conflicts between sources, unmanaged resources of the
 * scope, and coverage. Pure: reads only its arguments (live state as far as it was read, and the
 * reads that failed by need key).
 */
export function classifyEstate(sources: DriftSources, live: LiveState, failures: ReadonlyMap<string, string> = new Map()): ClassifiedEstate {
  const scope = sources.scope ?? "owned";
  const states = classifyStateDocuments(sources.stateDocuments ?? [], live, failures, sources.attributeOf);
  const claims = declaredByClaims(sources.claims ?? [], live);
  const elsewhere = new LiveKeySet([...keysOf(states.declared), ...keysOf(claims)]);
  const documents = classifyDocuments(sources.documents, live, failures, { managedElsewhere: elsewhere });

  const resources = [...documents.resources, ...states.resources];
  const entries = new Map<LoadedDocument, number>(documents.entryOf);
  for (const [loaded, index] of states.entryOf) entries.set(loaded, documents.resources.length + index);
  markConflicts(resources, entries, claimantsOf([
    [documents.declared, "documents"],
    [states.declared, "state"],
    [claims, "inventory"],
  ]));

  const declared = new LiveKeySet([...keysOf(documents.declared), ...elsewhere]);
  const counted = (key: LiveKey) => scope === "all" || !isApiKey(key);
  const liveInScope = new LiveKeySet([...declared].filter(counted));
  // an undeclared resource is live in scope when unmanaged; a protected one (the service's own) or an undecided one is in neither count
  for (const [key, outcome] of documents.undeclared) if (outcome === "unmanaged" && !declared.has(key)) liveInScope.add(key);
  if (scope === "all") {
    for (const unmanaged of unmanagedInScope(live, (key) => declared.has(key) || documents.undeclared.has(key))) {
      liveInScope.add(unmanaged.key);
      resources.push(unmanaged.resource);
    }
  }
  const managed = [...declared].filter(counted).length;
  return { resources, coverage: { managed, live: liveInScope.size } };
}

type ClaimantGroup = "documents" | "state" | "inventory";

interface Claimant {
  readonly loaded: LoadedDocument;
  readonly group: ClaimantGroup;
  readonly source: DriftSource;
}

/** Every claimant of every live resource, apart from the APIs that documents merely name. */
function claimantsOf(groups: ReadonlyArray<readonly [ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>, ClaimantGroup]>): LiveKeyMap<Claimant[]> {
  const claimants = new LiveKeyMap<Claimant[]>();
  for (const [declared, group] of groups) {
    for (const [loaded, keys] of declared) {
      for (const key of keys) {
        if (isApiKey(key)) continue;
        const list = claimants.get(key) ?? [];
        list.push({ loaded, group, source: sourceOfDocument(loaded) });
        claimants.set(key, list);
      }
    }
  }
  return claimants;
}

/** Turns the entry of each claimant of a live resource claimants fight over into a conflict that names them all. */
function markConflicts(resources: DriftResource[], entries: ReadonlyMap<LoadedDocument, number>, claimants: LiveKeyMap<Claimant[]>): void {
  for (const list of claimants.values()) {
    if (!inConflict(list)) continue;
    const claimedBy = list.map((claimant) => claimant.source);
    const reason = `claimed by ${list.length} sources (${claimedBy.map(describeSource).join("; ")}): `
      + "two managers will fight over it; keep it in one of them";
    for (const claimant of list) {
      const index = entries.get(claimant.loaded);
      if (index === undefined) continue;
      resources[index] = { ...resources[index]!, outcome: "conflict", reason, claimedBy };
    }
  }
}

/** `--unmanaged all`: every live resource the engines list that no source manages (`managed`), and not the service's own. */
function unmanagedInScope(live: LiveState, managed: (key: LiveKey) => boolean): Array<{ readonly key: LiveKey; readonly resource: DriftResource }> {
  const found: Array<{ readonly key: LiveKey; readonly resource: DriftResource }> = [];
  for (const engine of allEngines()) {
    for (const resource of engine.liveResources?.(live) ?? []) {
      if (managed(resource.key) || resource.serviceManaged) continue;
      found.push({
        key: resource.key,
        resource: {
          address: resource.address,
          kind: engine.model.kind,
          identity: resource.identity,
          outcome: "unmanaged",
          fields: [],
          reason: "live, and no source manages it (--unmanaged all)",
          source: null,
        },
      });
    }
  }
  return found;
}

/**
 * Whether the claimants of one live resource fight: any two of them but two documents of the
 * desired state (which the plan resolves to one) and a document beside an inventory (a cdktf stack's
 * synth output and the inventory its deploys keep name the same resources).
 */
function inConflict(claimants: ReadonlyArray<Claimant>): boolean {
  for (let i = 0; i < claimants.length; i += 1) {
    for (let j = i + 1; j < claimants.length; j += 1) {
      const groups = new Set([claimants[i]!.group, claimants[j]!.group]);
      if (claimants[i]!.loaded === claimants[j]!.loaded) continue;
      if (groups.size === 1 && groups.has("documents")) continue;
      if (groups.has("documents") && groups.has("inventory")) continue;
      return true;
    }
  }
  return false;
}

function keysOf(declared: ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>): LiveKey[] {
  return [...declared.values()].flat();
}

/**
 * The state instances compared with live, as `terraform plan -refresh-only` would: each is the
 * document converge's provider plans for its recorded attributes, so a field the engine finds
 * different is one its refresh would change. Planned together; each entry names its instance
 * (the document's `terraform` origin) and its fields by terraform's attribute names. Documents of
 * another source compared the same way keep their own origin and field paths.
 */
function classifyStateDocuments(
  documents: ReadonlyArray<LoadedDocument>,
  live: LiveState,
  failures: ReadonlyMap<string, string>,
  attributeOf: DriftSources["attributeOf"],
): ClassifiedDocuments {
  const classified = classifyDocuments(documents, live, failures);
  // the API a document names is declared whether or not its resource exists: only the resource's own key tells
  const declaresNothing = (loaded: LoadedDocument) => (classified.declared.get(loaded) ?? []).every(isApiKey);
  const resources = classified.resources.map((resource, index): DriftResource => {
    const loaded = classified.documentOf[index]!;
    // the resource the state holds is gone (a pin that matches nothing): what terraform's refresh shows as deleted
    if (resource.outcome === "refused" && declaresNothing(loaded)) {
      return { ...resource, outcome: "missing", fields: [], reason: "the state holds it, but it is gone from live state" };
    }
    const named = attributeOf !== undefined && loaded.terraform !== undefined ? attributeOf : undefined;
    const fields = resource.fields.map((field): DriftField => ({ ...field, path: named ? named(loaded, field.path) : field.path }));
    return { ...resource, fields };
  });
  return { ...classified, resources };
}

/**
 * The live resources terraform states manage (their converge resources and their stacks'
 * inventories): what `plan` and `apply` with `--state` never prune (PlanOptions.managedElsewhere).
 */
export function managedByStates(stateDocuments: ReadonlyArray<LoadedDocument>, claims: ReadonlyArray<LoadedDocument>, live: LiveState): LiveKeySet {
  const { declared } = plan(stateDocuments, live, { refuseTwins: true });
  return new LiveKeySet([...keysOf(declared), ...keysOf(declaredByClaims(claims, live))]);
}

/** The live resources an inventory's identities name (each an `ensure: absent` document, planned only to match it). */
function declaredByClaims(claims: ReadonlyArray<LoadedDocument>, live: LiveState): ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>> {
  if (claims.length === 0) return new Map();
  return plan(claims, live, { refuseTwins: true }).declared;
}
