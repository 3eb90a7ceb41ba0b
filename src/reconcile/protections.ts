import { engineForOp } from "./kinds/registry.js";
import type { ProtectionContext } from "./kinds/kind-engine.js";
import type { LiveState, PlannedAction } from "./model.js";

/**
 * The protections (docs/manual/desired-state.md, "Identity, diff, protections"), always on: every kind's engine that has
 * protections judges its own actions (never delete a service-managed route or integration, never
 * change the route key of a managed route, never delete an integration that a route will still
 * target). An unsafe action becomes a refused one, with the reason; it never reaches the API.
 */
export function applyProtections(actions: ReadonlyArray<PlannedAction>, live: LiveState): PlannedAction[] {
  const memos = new Map<string, unknown>();
  const context: ProtectionContext = {
    live,
    actions,
    memo<T>(key: string, build: () => T): T {
      if (!memos.has(key)) memos.set(key, build());
      return memos.get(key) as T;
    },
  };
  return actions.map((action) => {
    const request = action.request;
    const reason = request ? engineForOp(request.op)?.refusal?.(request, action, context) : undefined;
    if (reason === undefined) return action;
    const { request: _request, ...rest } = action;
    return { ...rest, type: "refused", reason };
  });
}
