import type { LiveState, PlannedAction } from "./model.js";

/**
 * The protections (DESIGN.md §3), always on: never delete a service-managed route or integration,
 * never change the route key of a managed route, never delete an integration that a route will
 * still target. An unsafe action becomes a refused one, with the reason; it never reaches the API.
 */
export function applyProtections(actions: ReadonlyArray<PlannedAction>, live: LiveState): PlannedAction[] {
  const refuse = (action: PlannedAction, reason: string): PlannedAction => {
    const { request: _request, ...rest } = action;
    return { ...rest, type: "refused", reason };
  };
  const routeRefusal = (request: Extract<PlannedAction["request"], { op: "deleteRoute" | "updateRoute" }>): string | undefined => {
    const route = live.apis[request.apiId]?.routes.find((candidate) => candidate.routeId === request.routeId);
    if (route?.apiGatewayManaged && request.op === "deleteRoute") {
      return `route ${route.routeId} (${route.routeKey}) is managed by the service (quick create): converge never deletes it`;
    }
    if (route?.apiGatewayManaged && request.op === "updateRoute" && "routeKey" in request.patch && request.patch.routeKey !== route.routeKey) {
      return `route ${route.routeId} is managed by the service (quick create): converge never changes its route key ${JSON.stringify(route.routeKey)}`;
    }
    return undefined;
  };
  // the target every live route will have once the plan is applied (undefined: deleted); a refused
  // route action is never sent, so the route keeps its live target
  const finalTargets = new Map<string, string | undefined>();
  for (const api of Object.values(live.apis)) for (const route of api.routes) finalTargets.set(`${api.apiId}/${route.routeId}`, route.target);
  for (const action of actions) {
    const request = action.request;
    if (request?.op === "deleteRoute" && !routeRefusal(request)) finalTargets.set(`${request.apiId}/${request.routeId}`, undefined);
    if (request?.op === "updateRoute" && "target" in request.patch && !routeRefusal(request)) finalTargets.set(`${request.apiId}/${request.routeId}`, (request.patch.target as string | null) ?? undefined);
    // retargeted to an integration this apply creates: the patch holds no target, yet the live one is left
    if (request?.op === "updateRoute" && request.targetIntegration && !routeRefusal(request)) finalTargets.set(`${request.apiId}/${request.routeId}`, `integrations/(${request.targetIntegration}, created by this apply)`);
    if (request?.op === "createRoute" && typeof request.body.target === "string") finalTargets.set(`${request.apiId}/new:${action.address}`, request.body.target);
  }

  return actions.map((action) => {
    const request = action.request;
    if (!request) return action;
    if (request.op === "deleteRoute" || request.op === "updateRoute") {
      const reason = routeRefusal(request);
      if (reason) return refuse(action, reason);
    }
    if (request.op === "deleteIntegration") {
      const integration = live.apis[request.apiId]?.integrations.find((candidate) => candidate.integrationId === request.integrationId);
      if (integration?.apiGatewayManaged) {
        return refuse(action, `integration ${integration.integrationId} is managed by the service (quick create): it may be updated, never deleted`);
      }
      const target = `integrations/${request.integrationId}`;
      const targeting = [...finalTargets].filter(([key, value]) => key.startsWith(`${request.apiId}/`) && value === target).map(([key]) => key.slice(request.apiId.length + 1));
      if (targeting.length > 0) {
        return refuse(action, `integration ${request.integrationId} is still the target of route${targeting.length > 1 ? "s" : ""} ${targeting.join(", ")}: retarget or delete ${targeting.length > 1 ? "them" : "it"} first`);
      }
    }
    return action;
  });
}
