import type { LoadedDocument } from "../desired/loaded-document.js";
import type { SourceLocation } from "../desired/desired-state-error.js";
import { classifyDocuments, type ClassifiedDocuments } from "./drift-classify.js";
import { describeSource, type DriftField, type DriftResource, type DriftSource } from "./drift-report.js";
import { allEngines } from "./kinds/registry.js";
import { liveKeyParts, type LiveKey } from "./live-keys.js";
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

/** Where a state-managed document comes from (src/desired/terraform-state.ts sets it on the documents it makes). */
interface TerraformOrigin {
  readonly state: string;
  readonly address: string;
}

type StateDocument = LoadedDocument & { readonly terraform?: TerraformOrigin | undefined };

export interface DriftSources {
  /** The desired state's documents (`-f` and `--from-synth`), compared and cross-checked as one. */
  readonly documents: ReadonlyArray<LoadedDocument>;
  /** The converge resources of terraform states, each the document the provider plans for it (pinned by its ID). */
  readonly stateDocuments?: ReadonlyArray<StateDocument>;
  /** Identities that only claim (a cdktf stack's inventory), as `ensure: absent` documents. */
  readonly claims?: ReadonlyArray<StateDocument>;
  /** @default "owned" */
  readonly scope?: UnmanagedScope;
  /** terraform's attribute of a document field path (`authorizationScopes` → `authorization_scopes`), for state-managed resources. */
  readonly attributeOf?: (document: LoadedDocument, path: string) => string;
}

export interface ClassifiedEstate {
  readonly resources: DriftResource[];
  readonly coverage: { readonly managed: number; readonly live: number };
}

/** Where a state instance stands while it is planned: a place of its own, so that plans and problems map back to it. */
const PLANNED_STATE = "\u0000state";

/**
 * Every source's resources in one outcome, conflicts between sources, unmanaged resources of the
 * scope, and coverage. Pure: reads only its arguments (live state as far as it was read, and the
 * reads that failed by need key).
 */
export function classifyEstate(sources: DriftSources, live: LiveState, failures: ReadonlyMap<string, string> = new Map()): ClassifiedEstate {
  const scope = sources.scope ?? "owned";
  const stateDocuments = sources.stateDocuments ?? [];
  const states = classifyStateDocuments(stateDocuments, live, failures, sources.attributeOf);
  const claims = declaredByClaims(sources.claims ?? [], live);
  const elsewhere = new Set<LiveKey>([...keysOf(states.classified.declared), ...keysOf(claims)]);
  const documents = classifyDocuments(sources.documents, live, failures, { managedElsewhere: elsewhere });

  const resources = [...documents.resources, ...states.resources];
  const entries = new Map<LoadedDocument, number>(documents.entryOf);
  for (const [loaded, index] of states.entryOf) entries.set(loaded, documents.resources.length + index);

  // every claimant of every live resource, apart from the APIs that documents merely name
  const claimants = new Map<LiveKey, Claimant[]>();
  const note = (declared: ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>, group: ClaimantGroup, sourceOf: (loaded: LoadedDocument) => DriftSource) => {
    for (const [loaded, keys] of declared) {
      for (const key of keys) {
        if (liveKeyParts(key).collection === "apis") continue;
        const list = claimants.get(key) ?? [];
        list.push({ loaded, group, source: sourceOf(loaded) });
        claimants.set(key, list);
      }
    }
  };
  note(documents.declared, "documents", (loaded) => loaded.source);
  note(states.declared, "state", (loaded) => originOf(loaded as StateDocument));
  note(claims, "inventory", (loaded) => originOf(loaded as StateDocument));
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

  const declared = new Set<LiveKey>([...keysOf(documents.declared), ...elsewhere]);
  const counted = (key: LiveKey) => scope === "all" || liveKeyParts(key).collection !== "apis";
  const liveInScope = new Set<LiveKey>([...declared].filter(counted));
  // an undeclared resource is live in scope when unmanaged; a protected one (the service's own) or an undecided one is in neither count
  for (const [key, outcome] of documents.undeclared) if (outcome === "unmanaged" && !declared.has(key)) liveInScope.add(key);
  if (scope === "all") {
    for (const engine of allEngines()) {
      for (const resource of engine.liveResources?.(live) ?? []) {
        if (declared.has(resource.key) || resource.serviceManaged || documents.undeclared.has(resource.key)) continue;
        liveInScope.add(resource.key);
        resources.push({
          address: resource.address,
          kind: engine.model.kind,
          identity: resource.identity,
          outcome: "unmanaged",
          fields: [],
          reason: "live, and no source manages it (--unmanaged all)",
          source: null,
        });
      }
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

function originOf(loaded: StateDocument): DriftSource {
  return loaded.terraform ?? loaded.source;
}

/** A document planned at a place of its own (`PLANNED_STATE`, line `index + 1`): what it declares and reports maps back by that place. */
function atOwnPlace(loaded: StateDocument, index: number): StateDocument {
  const source: SourceLocation = { file: PLANNED_STATE, line: index + 1, column: 1 };
  return { document: loaded.document, source, locate: () => source, terraform: loaded.terraform };
}

interface ClassifiedStates {
  readonly classified: ClassifiedDocuments;
  /** The state instances' entries, with their state sources and terraform's attribute names. */
  readonly resources: DriftResource[];
  readonly entryOf: ReadonlyMap<LoadedDocument, number>;
  readonly declared: ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>;
}

/**
 * The state instances compared with live, as `terraform plan -refresh-only` would: each is the
 * document converge's provider plans for its recorded attributes, so a field the engine finds
 * different is one its refresh would change. Planned together, each at a place of its own.
 */
function classifyStateDocuments(
  documents: ReadonlyArray<StateDocument>,
  live: LiveState,
  failures: ReadonlyMap<string, string>,
  attributeOf: DriftSources["attributeOf"],
): ClassifiedStates {
  const placed = documents.map(atOwnPlace);
  const classified = classifyDocuments(placed, live, failures);
  const indexAt = (source: DriftSource | null) => (source !== null && "file" in source && source.file === PLANNED_STATE ? source.line - 1 : undefined);
  // the API a document names is declared whether or not its resource exists: only the resource's own key tells
  const ownKeys = (loaded: LoadedDocument) => (classified.declared.get(loaded) ?? []).filter((key) => liveKeyParts(key).collection !== "apis");
  const declaresNothing = new Set(placed.filter((loaded) => ownKeys(loaded).length === 0).map((loaded) => loaded.source.line - 1));
  const resources = classified.resources.map((resource): DriftResource => {
    const index = indexAt(resource.source);
    const original = index === undefined ? undefined : documents[index];
    if (index === undefined || original === undefined) return resource;
    const source = originOf(original);
    // the resource the state holds is gone (a pin that matches nothing): what terraform's refresh shows as deleted
    if (resource.outcome === "refused" && declaresNothing.has(index)) {
      return { ...resource, outcome: "missing", fields: [], reason: "the state holds it, but it is gone from live state", source };
    }
    const fields = resource.fields.map((field): DriftField => ({ ...field, path: attributeOf ? attributeOf(original, field.path) : field.path }));
    return { ...resource, fields, source };
  });
  const back = (loaded: LoadedDocument) => documents[loaded.source.line - 1]!;
  return {
    classified,
    resources,
    entryOf: new Map([...classified.entryOf].map(([loaded, index]) => [back(loaded), index])),
    declared: new Map([...classified.declared].map(([loaded, keys]) => [back(loaded), keys])),
  };
}

/**
 * The live resources terraform states manage (their converge resources and their stacks'
 * inventories): what `plan` and `apply` with `--state` never prune (PlanOptions.managedElsewhere).
 */
export function managedByStates(stateDocuments: ReadonlyArray<StateDocument>, claims: ReadonlyArray<StateDocument>, live: LiveState): Set<LiveKey> {
  const placed = stateDocuments.map(atOwnPlace);
  const { declared } = plan(placed, live, { refuseTwins: true });
  return new Set([...keysOf(declared), ...keysOf(declaredByClaims(claims, live))]);
}

/** The live resources an inventory's identities name (each an `ensure: absent` document, planned only to match it). */
function declaredByClaims(claims: ReadonlyArray<StateDocument>, live: LiveState): ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>> {
  if (claims.length === 0) return new Map();
  const placed = claims.map(atOwnPlace);
  const { declared } = plan(placed, live, { refuseTwins: true });
  return new Map([...declared].map(([loaded, keys]) => [claims[loaded.source.line - 1]!, keys]));
}
