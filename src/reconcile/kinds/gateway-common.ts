import { protocolProblems } from "../../desired/kinds/gateway-checks.js";
import { problemAt } from "../../desired/kinds/kind-model.js";
import type { LoadedDocument } from "../../desired/load.js";
import type { IntegrationDocument, RouteDocument } from "../../desired/schema.js";
import type { ProtocolType } from "../../spec/gateway.js";
import type { LiveApi } from "../model.js";
import type { KindPlan, PlanContext } from "./kind-engine.js";

export function routeAddress(apiId: string, routeKey: string): string {
  return `Route/${apiId}/${routeKey}`;
}

export function integrationAddress(apiId: string, name: string): string {
  return `Integration/${apiId}/${name}`;
}

/**
 * The start of planning a route or integration: its API resolved, the live protocol's rules
 * checked. Either the planning inputs, or the plan that reports why there are none.
 */
export function resolveGatewayDocument(
  loaded: LoadedDocument<RouteDocument> | LoadedDocument<IntegrationDocument>,
  context: PlanContext,
): { readonly apiId: string; readonly protocolType: ProtocolType | undefined; readonly liveApi: LiveApi } | { readonly failed: KindPlan } {
  const resolved = context.resolveApi(loaded.document.api);
  if ("problem" in resolved) return { failed: { actions: [], problems: [problemAt(loaded, ["api"], resolved.problem)] } };
  const { apiId, protocolType } = resolved;
  const problems = protocolType ? protocolProblems(loaded, protocolType) : [];
  if (problems.length > 0) return { failed: { actions: [], problems } };
  return { apiId, protocolType, liveApi: context.live.apis[apiId]! };
}
