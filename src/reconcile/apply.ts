import pLimit from "p-limit";
import { DEFAULT_RETRY_POLICY, type Clients } from "../clients/index.js";
import { allEngines, engineForOp } from "./kinds/registry.js";
import type { ApplyContext, ApplyOptions } from "./kinds/kind-engine.js";
import type { Plan, PlannedAction } from "./model.js";

export type { ApplyOptions } from "./kinds/kind-engine.js";

export interface ActionOutcome {
  readonly address: string;
  readonly type: PlannedAction["type"];
  readonly status: "done" | "failed" | "skipped";
  readonly error?: string | undefined;
}

export interface ApplyReport {
  readonly outcomes: ReadonlyArray<ActionOutcome>;
  readonly done: number;
  readonly failed: number;
  /** Actions not started because the apply was stopped (ApplyOptions.stop). */
  readonly skipped: number;
}

const EXECUTABLE = new Set<PlannedAction["type"]>(["create", "update", "delete"]);

/**
 * Executes exactly the planned create, update and delete actions: phase by phase (integrations,
 * then routes, then route deletes, then integration deletes; contacts and Regions with the
 * first phase), with bounded concurrency inside a phase. A failed action is reported and does not
 * stop the others; an action whose integration failed to appear fails with that reason. Once
 * `options.stop` is aborted, no action starts: those under way finish, the rest are `skipped`.
 */
export async function applyPlan(plan: Plan, clients: Clients, options: ApplyOptions = {}): Promise<ApplyReport> {
  return applyActions(plan, createApplyContext(clients, options));
}

/**
 * What the actions of one apply share: the clients, the options, and each kind's state for the
 * length of the apply. A caller that applies a plan through {@link applyActions} keeps it, to ask a
 * kind afterwards what the apply made (the integrationId a create got, kinds/integration-identity.ts).
 */
export function createApplyContext(clients: Clients, options: ApplyOptions = {}): ApplyContext {
  const states = new Map<string, unknown>();
  return {
    clients,
    signal: options.signal,
    notice: options.notice ?? (() => undefined),
    createAttempts: options.createAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
    options,
    state<T>(key: string, create: () => T): T {
      if (!states.has(key)) states.set(key, create());
      return states.get(key) as T;
    },
  };
}

/** {@link applyPlan} with the context the caller made. */
export async function applyActions(plan: Pick<Plan, "actions">, context: ApplyContext): Promise<ApplyReport> {
  const { options } = context;
  // what the plan already knows that later actions refer to (the integrationId a no-op's name resolved to)
  for (const action of plan.actions) if (action.request) engineForOp(action.request.op)?.seed?.(action.request, context);
  const limit = pLimit(options.parallelism ?? 10);
  const outcomes: ActionOutcome[] = [];
  const progress = options.progress;
  progress?.expectWrites(plan.actions.filter(isExecutable).length);
  const phases = [...new Set(plan.actions.map((action) => action.phase))].sort((a, b) => a - b);
  for (const phase of phases) {
    const runnable = plan.actions.filter((action) => action.phase === phase && isExecutable(action));
    await Promise.all(runnable.map((action) => limit(async () => {
      if (options.stop?.aborted) {
        outcomes.push({ address: action.address, type: action.type, status: "skipped", error: "not started: the apply was interrupted" });
        return;
      }
      const engine = engineForOp(action.request!.op);
      try {
        if (!engine) throw new Error(`no kind executes ${action.request!.op}`);
        progress?.writeStarted(`${verb(action)} ${action.address}`);
        await engine.execute(action.request!, context);
        outcomes.push({ address: action.address, type: action.type, status: "done" });
      } catch (error) {
        outcomes.push({ address: action.address, type: action.type, status: "failed", error: error instanceof Error ? error.message : String(error) });
      } finally {
        progress?.writeDone();
      }
    })));
    // before anything refers to what this phase created: settle it (an integration adopts a twin another run created first)
    if (options.settleCreated === false || options.stop?.aborted) continue;
    const settled = await Promise.all(allEngines().map((engine) => engine.settle?.(context, limit) ?? []));
    for (const failure of settled.flat()) {
      const outcome = outcomes.findIndex((candidate) => candidate.address === failure.address && candidate.status === "done");
      if (outcome !== -1) outcomes[outcome] = { ...outcomes[outcome]!, status: "failed", error: failure.error };
    }
  }
  const count = (status: ActionOutcome["status"]) => outcomes.filter((outcome) => outcome.status === status).length;
  return { outcomes, done: count("done"), failed: count("failed"), skipped: count("skipped") };
}

function isExecutable(action: PlannedAction): boolean {
  return EXECUTABLE.has(action.type) && action.request !== undefined;
}

function verb(action: PlannedAction): string {
  return action.type === "create" ? "creating" : action.type === "update" ? "updating" : "deleting";
}
