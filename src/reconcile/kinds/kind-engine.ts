import type { Clients } from "../../clients/index.js";
import type { DesiredStateProblem } from "../../desired/desired-state-error.js";
import type { KindModel } from "../../desired/kinds/kind-model.js";
import type { LoadedDocument } from "../../desired/load.js";
import type { ApiRef, Document } from "../../desired/schema.js";
import type { ProtocolType } from "../../spec/gateway.js";
import type { CreatedIntegration, TwinGroup } from "../twins.js";
import type { ActionRequest, LiveNeed, LiveState, PlannedAction } from "../model.js";

/** What a kind's planning sees besides its own document. Planning never calls anything. */
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
  /** A lookup table over live state built once per plan. */
  memo<T>(key: string, build: () => T): T;
  /**
   * Why identical twins of a declared integration in this API plan as a repair (twins.ts): the API
   * is pruned (`kind: Api` with prune, or --prune), or --repair-twins; undefined: they stay an
   * ambiguous match.
   */
  twinRepair(apiId: string): "pruned" | "repair-twins" | undefined;
  /** Records twins to repair; plan() adds the deletes and route retargets once every document is planned. */
  recordTwins(group: TwinGroup): void;
}

/** What executing an action can use. */
export interface ApplyContext {
  readonly clients: Clients;
  /** `<apiId>/<logical name>` → integrationId, filled from the plan and by creates. */
  readonly integrationIds: Map<string, string>;
  readonly signal?: AbortSignal | undefined;
  /** A notice for people (what apply had to do besides the plan: adopting, waiting); never required for correctness. */
  notice(message: string): void;
  /** How long to wait for a Region to leave ENABLING/DISABLING. @default 300000 */
  readonly regionSettleTimeoutMs: number;
  readonly regionPollIntervalMs: number;
  /** Attempts of one create after ambiguous failures, each preceded by a re-read. */
  readonly createAttempts: number;
  /** Integrations created in the current phase, settled against twins after it (twins.ts). */
  readonly created: CreatedIntegration[];
}

/** The actions a document plans, and the problems only live state shows. */
export interface KindPlan {
  readonly actions: ReadonlyArray<PlannedAction>;
  readonly problems: ReadonlyArray<DesiredStateProblem>;
}

/**
 * The engine half of one resource kind: what it reads, how it plans (pure), and how it applies its
 * own action requests. It builds on the kind's model (src/desired/kinds/), which knows the
 * document's identity and its offline checks. The registry lists the kinds; nothing else switches
 * on kind names.
 */
export interface KindEngine<D extends Document = Document> {
  readonly model: KindModel<D>;
  /** Planning order: kinds that others reference plan first (integrations before routes, Api last). */
  readonly planOrder: number;
  /** The action requests this engine executes. */
  readonly ops: ReadonlyArray<ActionRequest["op"]>;
  /** The reads planning needs. @default the model's read key */
  needs?(document: D): LiveNeed[];
  plan(document: LoadedDocument<D>, context: PlanContext): KindPlan;
  /** The API whose undeclared routes and integrations this document prunes, if any (an `Api` document with prune). */
  prunes?(document: LoadedDocument<D>, context: PlanContext): string | undefined;
  execute(request: ActionRequest, context: ApplyContext): Promise<void>;
}
