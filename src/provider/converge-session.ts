import type { Clients } from "../clients/index.js";
import type { SourceLocation } from "../desired/desired-state-error.js";
import { documentFromValue, type DocumentIssue } from "../desired/document-value.js";
import type { LoadedDocument } from "../desired/load.js";
import type { Document, Kind } from "../desired/schema.js";
import type { ApplyOptions } from "../reconcile/apply.js";
import type { ApplyContext } from "../reconcile/kinds/kind-engine.js";
import type { LiveNeed, LiveState, PlannedAction } from "../reconcile/model.js";
import type { LiveCache } from "./live-cache.js";
import type { Logger } from "./runtime/index.js";

type Engine = typeof import("../reconcile/plan.js") & typeof import("../reconcile/apply.js") & typeof import("../reconcile/kinds/registry.js");
let loadedEngine: Promise<Engine> | undefined;

/**
 * The engine (converge's plan and apply, every kind's engine, the clients), loaded once, by the
 * first call that needs live state: terraform starts the provider three times per command, twice
 * only to read its schemas and validate configuration, which need none of it (docs/manual/terraform-provider.md, "Terraform
 * provider").
 */
function engine(): Promise<Engine> {
  loadedEngine ??= Promise.all([import("../reconcile/plan.js"), import("../reconcile/apply.js"), import("../reconcile/kinds/registry.js")])
    .then(([planning, applying, registry]) => ({ ...planning, ...applying, ...registry }));
  return loadedEngine;
}

/** Where a document made from terraform values stands (terraform names the resource itself). */
const TERRAFORM: SourceLocation = { file: "terraform", line: 1, column: 1 };

/** What configuring the provider makes: the clients and the live state of this terraform command. */
export interface ConvergeSession {
  readonly cache: LiveCache;
  readonly clients: Clients;
  readonly log: Logger;
  /** The live resources states of this command hold, as far as the process has seen them (KindBinding.holding's keys). */
  readonly held: Set<string>;
  /** What the engine planned against live state as it is now (planDocument's). */
  readonly plans: SessionPlans;
}

/** A view of live state a plan is made against (`planDocument`'s `live`). */
type LiveView = (live: LiveState) => LiveState;

/**
 * The engine's plans of one process by document and view of live state, kept while live state
 * stays as the process read it: terraform asks about one resource in several calls (read, plan,
 * apply), and the engine plans the same document against the same live state the same way (plan is
 * pure). A write of the process, from its start until its answer is taken in, and a read forgotten
 * end every plan kept; a plan made while a write was under way is not kept. Documents are keyed by
 * identity (the checked documents of checked-documents.ts are shared), so is the view.
 */
export class SessionPlans {
  #generation = 0;
  #writing = 0;
  readonly #plans = new WeakMap<LoadedDocument, Map<LiveView | undefined, { readonly generation: number; readonly plan: OnePlan }>>();

  /** The plan kept for the document and view, else `make`'s (kept when no write began or was under way while it was made). */
  async plan(loaded: LoadedDocument, view: LiveView | undefined, make: () => Promise<OnePlan>): Promise<OnePlan> {
    const kept = this.#plans.get(loaded)?.get(view);
    if (kept !== undefined && kept.generation === this.#generation) return kept.plan;
    const generation = this.#generation;
    const quiet = this.#writing === 0;
    const plan = await make();
    if (quiet && this.#writing === 0 && generation === this.#generation) {
      let byView = this.#plans.get(loaded);
      if (byView === undefined) this.#plans.set(loaded, (byView = new Map()));
      byView.set(view, { generation, plan });
    }
    return plan;
  }

  /** Runs a write: no plan kept before it is used after it, none made meanwhile is kept. */
  async writing<T>(write: () => Promise<T>): Promise<T> {
    this.#writing += 1;
    this.#generation += 1;
    try {
      return await write();
    } finally {
      this.#writing -= 1;
      this.#generation += 1;
    }
  }

  /** Ends every plan kept (live state as read is forgotten in part). */
  forget(): void {
    this.#generation += 1;
  }
}

/** A document the kind's schema refused, with every field it breaks. */
export interface RefusedDocument {
  readonly issues: ReadonlyArray<DocumentIssue>;
}

/** What the engine plans for one document against live state: the one action, or why there is none. */
export type OnePlan =
  | { readonly action: PlannedAction; readonly live: LiveState; readonly loaded: LoadedDocument }
  | { readonly problems: ReadonlyArray<{ readonly path: string; readonly message: string }>; readonly live: LiveState };

/** A document checked by its kind's schema: the document loaded, or every field the schema refused. */
export type CheckedByKind = { readonly loaded: LoadedDocument } | RefusedDocument;

/** A document of `kind` made from terraform values, checked by its kind's schema. */
export function terraformDocument(kind: Kind, value: unknown): CheckedByKind {
  return documentFromValue(kind, value, TERRAFORM) as CheckedByKind;
}

/**
 * Plans one document as `converge plan` would, against the live state this command read (read now
 * if it was not): the same identity, defaults, diff rules and protections. `live` lets the caller
 * see the state the plan was made against.
 */
export function planDocument(
  session: ConvergeSession,
  loaded: LoadedDocument,
  options: { readonly signal?: AbortSignal; readonly live?: LiveView } = {},
): Promise<OnePlan> {
  return session.plans.plan(loaded, options.live, () => planAgainstLive(session, loaded, options));
}

async function planAgainstLive(session: ConvergeSession, loaded: LoadedDocument, options: { readonly signal?: AbortSignal; readonly live?: LiveView }): Promise<OnePlan> {
  const { needsOf, plan } = await engine();
  const read = await session.cache.read(needsOf([loaded]), options.signal);
  const live = options.live ? options.live(read) : read;
  // twins are never repaired from terraform: a resource is one live item, and it has no pin to choose among several
  const result = plan([loaded], live, { refuseTwins: true });
  if (result.problems.length > 0) return { problems: result.problems, live };
  const [action] = result.plan.actions;
  if (!action) return { problems: [{ path: "", message: "the engine planned nothing for this resource" }], live };
  return { action, live, loaded };
}

/** Applies one planned action; resolves to the apply's context (what a kind recorded, e.g. the created integrationId), or throws what failed. */
export async function applyAction(session: ConvergeSession, action: PlannedAction, options: ApplyOptions): Promise<ApplyContext> {
  const { applyActions, createApplyContext } = await engine();
  // terraform holds each live resource by its ID: two identical integrations are two resources, not twins to settle
  const context = createApplyContext(session.clients, { ...options, settleCreated: false, notice: (message) => session.log.info(message) });
  const report = await session.plans.writing(() => applyActions({ actions: [action] }, context));
  const failed = report.outcomes.find((outcome) => outcome.status === "failed");
  if (failed) throw new Error(failed.error ?? `${action.type} of ${action.address} failed`);
  return context;
}

/** Forgets what was read for `needs` (LiveCache.forget), and every plan made against it. */
export function forgetRead(session: ConvergeSession, needs: ReadonlyArray<LiveNeed>): void {
  session.cache.forget(needs);
  session.plans.forget();
}

/** The reads a document (made from terraform values, not yet checked) needs: its read key. */
export async function needsOfDocument(document: unknown): Promise<LiveNeed[]> {
  return (await engine()).needsOfDocument(document as Document);
}
