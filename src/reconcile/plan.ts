import { createHash } from "node:crypto";
import type { DesiredStateProblem } from "../desired/desired-state-error.js";
import type { LoadedDocument } from "../desired/load.js";
import { apiRefKey } from "../desired/api-ref.js";
import { crossCheckEachDocument, type DocumentProblem } from "../desired/cross-check.js";
import { problemAt } from "../desired/kinds/kind-model.js";
import { readKeyText } from "../desired/read-key.js";
import type { ApiRef, Kind } from "../desired/schema.js";
import type { ProtocolType } from "../contract/gateway.js";
import { allEngines, engineForOp, engineOf, kindsInPlanOrder, needsOfDocument } from "./kinds/registry.js";
import type { Claim, ClaimCollection, DocumentAction, PlanContext, PlanOptions, PruneReason } from "./kinds/kind-engine.js";
import { PLAN_FORMAT_VERSION, summarize, type LiveApi, type LiveNeed, type LiveState, type Plan, type PlannedAction } from "./model.js";
import { applyProtections } from "./protections.js";
import { liveKeyOf, liveKeyText, type LiveKey } from "./live-keys.js";

export interface PlanResult {
  readonly plan: Plan;
  /** Problems found only with live state (an unknown API, an ambiguous match, a rule of the live protocol). */
  readonly problems: ReadonlyArray<DesiredStateProblem>;
  /** The live resources each document declares (live-keys.ts), as its plan matched them; absent for a document that matched none. */
  readonly declared: ReadonlyMap<LoadedDocument, ReadonlyArray<LiveKey>>;
  /**
   * The document each action of `plan.actions` came from, by reference: the one that planned it (an
   * `Api` document for the children it prunes, an Integration document for the twins it repairs).
   * A plan file keeps only the action's source location, which only files make unique.
   */
  readonly actionDocuments: ReadonlyMap<PlannedAction, LoadedDocument>;
  /** The document each of `problems` is about, by reference. */
  readonly problemDocuments: ReadonlyMap<DesiredStateProblem, LoadedDocument>;
}

/** The live reads a set of documents needs, deduplicated. */
export function needsOf(documents: ReadonlyArray<LoadedDocument>): LiveNeed[] {
  const byKey = new Map<string, LiveNeed>();
  for (const loaded of documents) {
    for (const need of needsOfDocument(loaded.document)) {
      const key = readKeyText(need);
      const existing = byKey.get(key);
      if (!existing || (need.type === "api" && need.protocolType)) byKey.set(key, need);
    }
  }
  return [...byKey.values()];
}

/**
 * A stable hash of live state: equal states, equal fingerprints. Live state is built in a fixed key
 * order (records sorted by readLive, items shaped by the wire schemas, which emit their fields in
 * schema order), so plain JSON is canonical here; a converge of another version could order fields
 * differently, which only makes `apply PLAN.json` refuse, the safe direction.
 */
export function fingerprint(live: LiveState): string {
  return createHash("sha256").update(JSON.stringify(live)).digest("hex");
}

/**
 * Plans the actions that make live state match the documents. Pure and synchronous: it reads only
 * its arguments and returns JSON-serializable data. Integrations plan before the routes that target
 * them, `Api` documents last (pruning what nothing claimed); then the protections refuse what is unsafe.
 */
export function plan(documents: ReadonlyArray<LoadedDocument>, live: LiveState, options: PlanOptions = {}): PlanResult {
  const claimed = new Map<string, Set<string>>();
  const declared = new Map<LoadedDocument, LiveKey[]>();
  let planning: LoadedDocument | undefined;
  const declare = (key: LiveKey) => {
    if (planning === undefined) return;
    const keys = declared.get(planning);
    if (keys === undefined) declared.set(planning, [key]);
    else if (!keys.some((other) => liveKeyText(other) === liveKeyText(key))) keys.push(key);
  };
  const context = createPlanContext(live, options, documents, claimed, declare);
  const found = planFindings();
  const order = new Map<Kind, number>(kindsInPlanOrder().map((kind, index) => [kind, index]));
  // within a kind, pinned documents first: an integration pinned by one document is never matched by another's natural key
  const pinnedFirst = (loaded: LoadedDocument) => (engineOf(loaded.document.kind).model.pinned?.(loaded.document) ? 0 : 1);
  const sorted = [...documents].sort((a, b) => order.get(a.document.kind)! - order.get(b.document.kind)! || pinnedFirst(a) - pinnedFirst(b));
  for (const loaded of sorted) {
    planning = loaded;
    found.add(loaded, engineOf(loaded.document.kind).plan(loaded, context));
  }
  planning = undefined;
  for (const engine of allEngines()) if (engine.repairs) found.addActions(engine.repairs(found.actions, context));
  found.addProblems(resolvedCrossCheck(documents, live));
  if (options.removed && options.removed.length > 0) {
    const claimedByDocuments = new Map([...claimed].map(([key, ids]) => [key, new Set(ids)]));
    for (const removed of planRemoved(options.removed, context, order, claimedByDocuments)) found.add(removed.document, removed);
  }
  let liveFingerprint: string | undefined;
  const actionDocuments = new Map<PlannedAction, LoadedDocument>();
  const protectedActions = applyProtections(found.actions, live)
    .map((action, index) => {
      // a refused action is a new object: it keeps the document of the action it replaces
      const document = found.actionDocuments.get(found.actions[index]!);
      if (document !== undefined) actionDocuments.set(action, document);
      return { action, index };
    })
    .sort((a, b) => a.action.phase - b.action.phase || a.index - b.index)
    .map(({ action }) => action);
  return {
    plan: {
      formatVersion: PLAN_FORMAT_VERSION,
      // hashed when read (plan files, apply's check): a plan made for one resource at a time, as the
      // terraform provider makes them, never hashes the whole API it read
      get liveFingerprint() {
        liveFingerprint ??= fingerprint(live);
        return liveFingerprint;
      },
      prune: options.prune ?? false,
      repairTwins: options.repairTwins ?? false,
      actions: protectedActions,
      summary: summarize(protectedActions),
    },
    problems: found.problems,
    declared,
    actionDocuments,
    problemDocuments: found.problemDocuments,
  };
}

/** The actions and problems of a plan as they are found, each with the document it came from. */
function planFindings() {
  const actions: PlannedAction[] = [];
  const problems: DesiredStateProblem[] = [];
  const actionDocuments = new Map<PlannedAction, LoadedDocument>();
  const problemDocuments = new Map<DesiredStateProblem, LoadedDocument>();
  const addActions = (added: ReadonlyArray<DocumentAction>) => {
    for (const { action, document } of added) {
      actions.push(action);
      actionDocuments.set(action, document);
    }
  };
  const addProblems = (added: ReadonlyArray<DocumentProblem>) => {
    for (const { problem, document } of added) {
      problems.push(problem);
      problemDocuments.set(problem, document);
    }
  };
  return {
    actions,
    problems,
    actionDocuments,
    problemDocuments,
    addActions,
    addProblems,
    /** What one document planned: every action and problem is its own. */
    add(document: LoadedDocument, result: { readonly actions: ReadonlyArray<PlannedAction>; readonly problems: ReadonlyArray<DesiredStateProblem> }) {
      addActions(result.actions.map((action) => ({ action, document })));
      addProblems(result.problems.map((problem) => ({ problem, document })));
    },
  };
}

/**
 * The deletes of documents no longer declared (PlanOptions.removed), planned once every document
 * has claimed its live resource: a delete of a claimed resource is dropped, and so is a document
 * whose API no longer exists (what it named went with it).
 */
function planRemoved(
  removed: ReadonlyArray<LoadedDocument>,
  context: PlanContext,
  order: ReadonlyMap<Kind, number>,
  claimedByDocuments: ReadonlyMap<string, ReadonlySet<string>>,
): Array<{ readonly document: LoadedDocument; readonly actions: PlannedAction[]; readonly problems: ReadonlyArray<DesiredStateProblem> }> {
  const deletedBy = (action: PlannedAction) => (action.request ? engineForOp(action.request.op)?.deleted?.(action.request) : undefined);
  const declared = (claim: Claim | undefined): boolean => claim !== undefined
    && (claimedByDocuments.get(`${claim.collection}/${claim.apiId}`)?.has(claim.id) ?? false);
  return [...removed].sort((a, b) => order.get(a.document.kind)! - order.get(b.document.kind)!).map((loaded) => {
    const document = loaded.document;
    const resolved = "api" in document ? context.resolveApi(document.api) : undefined;
    if (resolved && "problem" in resolved) {
      // not found: nothing to delete; two APIs of that name: which one is not known, say so
      const ambiguous = "api" in document && typeof document.api !== "string" && (context.live.apiIdsByName[document.api.name]?.length ?? 0) > 1;
      return { document: loaded, actions: [], problems: ambiguous ? [problemAt(loaded, ["api"], resolved.problem)] : [] };
    }
    const result = engineOf(document.kind).plan(loaded, context);
    const deletes = result.actions.filter((action) => action.type === "delete" && !declared(deletedBy(action)?.claim));
    const reason = (action: PlannedAction) => `no longer declared (${deletedBy(action)?.description ?? "its live resource"}, listed by the previous deploy)`;
    return { document: loaded, actions: deletes.map((action) => ({ ...action, reason: reason(action) })), problems: result.problems };
  });
}

/**
 * The cross-document checks again, with every API reference resolved to its apiId: offline, an
 * apiId and a name are never taken for the same API (only live state tells), so two documents of one
 * API that name it differently are compared here (one document per identity, a route target
 * declared in its API). Nothing to add when no document names its API.
 */
function resolvedCrossCheck(documents: ReadonlyArray<LoadedDocument>, live: LiveState): DocumentProblem[] {
  if (!documents.some((loaded) => "api" in loaded.document && typeof loaded.document.api !== "string")) return [];
  const resolvedApiKey = (ref: ApiRef): string => {
    if (typeof ref === "string") return ref;
    const ids = live.apiIdsByName[ref.name] ?? [];
    return ids.length === 1 ? ids[0]! : apiRefKey(ref);
  };
  return crossCheckEachDocument(documents, { resolvedApiKey });
}

/** PlanContext.resolveApi: the API a reference resolves to in live state, or a problem message (not found, ambiguous name). */
function resolveApiIn(live: LiveState, ref: ApiRef): ReturnType<PlanContext["resolveApi"]> {
  let apiId: string;
  if (typeof ref === "string") {
    apiId = ref;
  } else {
    const ids = live.apiIdsByName[ref.name] ?? [];
    if (ids.length === 0) {
      return { problem: `no API is named ${JSON.stringify(ref.name)} in this account (converge manages an API's routes and integrations, `
        + "never the API itself: create it first, or check the endpoint and token)" };
    }
    if (ids.length > 1) return { problem: `${ids.length} APIs are named ${JSON.stringify(ref.name)} (${ids.join(", ")}): reference one by its apiId` };
    apiId = ids[0]!;
  }
  const api = live.apis[apiId];
  if (!api) return { problem: `API ${apiId} does not exist in this account (or the token may not read it)` };
  return { apiId, protocolType: api.protocolType as ProtocolType | undefined };
}

function createPlanContext(
  live: LiveState,
  options: PlanOptions,
  documents: ReadonlyArray<LoadedDocument>,
  claimed: Map<string, Set<string>>,
  declare: (key: LiveKey) => void,
): PlanContext {
  const claimsOf = (collection: ClaimCollection, apiId: string) => {
    const key = `${collection}/${apiId}`;
    let ids = claimed.get(key);
    if (!ids) {
      ids = new Set();
      claimed.set(key, ids);
    }
    return ids;
  };
  const states = new Map<string, unknown>();
  let pruned: Set<string> | undefined;
  const context: PlanContext = {
    live,
    options,
    prune: options.prune ?? false,
    resolveApi: (ref) => resolveApiIn(live, ref),
    claim(collection, apiId, id) {
      claimsOf(collection, apiId).add(id);
      declare(liveKeyOf(collection, apiId, id));
    },
    declare,
    isClaimed: (collection, apiId, id) => claimed.get(`${collection}/${apiId}`)?.has(id) ?? false,
    state<T>(key: string, create: () => T): T {
      if (!states.has(key)) states.set(key, create());
      return states.get(key) as T;
    },
    unclaimed: (api, why) => unclaimedDeletes(api, why, context, options.managedElsewhere),
    prunes(apiId) {
      pruned ??= new Set(documents.map((loaded) => engineOf(loaded.document.kind).prunes?.(loaded, context)).filter((id): id is string => id !== undefined));
      return pruned.has(apiId);
    },
  };
  return context;
}

/**
 * The deletes that prune an API's children no document claims, every engine that prunes asked in
 * reverse plan order, but for what another source manages (`managedElsewhere`).
 */
function unclaimedDeletes(api: LiveApi, why: PruneReason, context: PlanContext, elsewhere: PlanOptions["managedElsewhere"]): PlannedAction[] {
  const children = allEngines().filter((engine) => engine.unclaimed).sort((a, b) => b.planOrder - a.planOrder);
  const deletes = children.flatMap((engine) => engine.unclaimed!(api, context, why));
  if (elsewhere === undefined || elsewhere.size === 0) return deletes;
  // what another source manages is not this desired state's to prune
  return deletes.filter((action) => {
    const claim = action.request ? engineForOp(action.request.op)?.deleted?.(action.request)?.claim : undefined;
    return claim === undefined || !elsewhere.has(liveKeyOf(claim.collection, claim.apiId, claim.id));
  });
}
