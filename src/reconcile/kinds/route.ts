import { routeModel } from "../../desired/kinds/route.js";
import type { RouteDocument } from "../../desired/schema.js";
import { routeServerDefaults, type Route } from "../../spec/gateway.js";
import { collect, isAmbiguousWrite, isConflict } from "../../clients/index.js";
import { bodyOf, diffFields, patchOf } from "../diff.js";
import { PHASE, type FieldChange, type PlannedAction } from "../model.js";
import type { ApplyContext, KindEngine } from "./kind-engine.js";
import { resolveGatewayDocument, routeAddress } from "./gateway-common.js";

const sortedSet = (value: unknown) => (Array.isArray(value) ? [...value].sort() : value);

/**
 * Route: matched by (API, routeKey), or a pinned routeId. A target `{integration: name}` resolves
 * to `integrations/<id>` of that integration (at apply time when it is created in the same run).
 */
export const routeEngine: KindEngine<RouteDocument> = {
  model: routeModel,
  planOrder: 1,
  ops: ["createRoute", "updateRoute", "deleteRoute"],

  plan(loaded, context) {
    const document = loaded.document;
    const resolved = resolveGatewayDocument(loaded, context);
    if ("failed" in resolved) return resolved.failed;
    const { apiId, protocolType, liveApi } = resolved;
    const spec = document.spec;
    const base = { kind: "Route" as const, address: routeAddress(apiId, spec.routeKey), name: document.name ?? spec.routeKey, identity: `${apiId}/${spec.routeKey}`, source: loaded.source };
    const action = (fields: Omit<PlannedAction, keyof typeof base>): PlannedAction => ({ ...base, ...fields });

    // pinned routes plan first; a route a pin claimed (perhaps to rename it) is not matched by key again
    const match = spec.routeId !== undefined
      ? liveApi.routes.find((live) => live.routeId === spec.routeId)
      : liveApi.routes.find((live) => live.routeKey === spec.routeKey && !context.isClaimed("routes", apiId, live.routeId));
    if (spec.routeId !== undefined && !match && document.ensure === "present") {
      return { problems: [], actions: [action({ type: "refused", phase: PHASE.routes, changes: [], reason: `pinned routeId ${spec.routeId} does not exist in API ${apiId}: remove the pin to create the route` })] };
    }
    if (match) context.claim("routes", apiId, match.routeId);

    if (document.ensure === "absent") {
      if (!match) return { problems: [], actions: [action({ type: "no-op", phase: PHASE.routeDeletes, changes: [] })] };
      return { problems: [], actions: [action({ type: "delete", phase: PHASE.routeDeletes, changes: [], reason: "ensure: absent", request: { op: "deleteRoute", apiId, routeId: match.routeId } })] };
    }

    // the target: a resolved "integrations/<id>", or the name of an integration created in this run
    let target: string | null | undefined;
    let targetIntegration: string | undefined;
    if (spec.target === null || typeof spec.target === "string") target = spec.target;
    else if (spec.target) {
      const id = context.integrationIdOf(apiId, spec.target.integration);
      if (id === undefined || id === "pending") targetIntegration = spec.target.integration;
      else target = `integrations/${id}`;
    }
    const desired = { ...spec, target } as Record<string, unknown>;

    if (!match) {
      const body = bodyOf(desired, ["routeId"]);
      const changes: FieldChange[] = Object.entries(body).map(([path, after]) => ({ path, before: null, after }));
      if (targetIntegration) changes.push({ path: "target", before: null, after: `integrations/(${targetIntegration}, created by this apply)` });
      return { problems: [], actions: [action({ type: "create", phase: PHASE.routeCreates, changes, request: { op: "createRoute", apiId, body, targetIntegration } })] };
    }

    const changes = diffFields(desired, match as Record<string, unknown>, { defaults: routeServerDefaults(protocolType), ignore: ["routeId"], normalize: { authorizationScopes: sortedSet } });
    if (targetIntegration) changes.push({ path: "target", before: match.target ?? null, after: `integrations/(${targetIntegration}, created by this apply)` });
    if (changes.length === 0) return { problems: [], actions: [action({ type: "no-op", phase: PHASE.routes, changes })] };
    const patch = withAuthorizerPairing(patchOf(changes.filter((change) => !(targetIntegration && change.path === "target"))), spec, match);
    return { problems: [], actions: [action({ type: "update", phase: PHASE.routes, changes, request: { op: "updateRoute", apiId, routeId: match.routeId, patch, targetIntegration } })] };
  },

  async execute(request, context) {
    const gateway = context.clients.gateway;
    const signal = context.signal;
    switch (request.op) {
      case "createRoute": {
        const body = { ...request.body, ...resolveTarget(request.apiId, request.targetIntegration, context) };
        await createRouteOnce(request.apiId, body as Route, context);
        return;
      }
      case "updateRoute": {
        const patch = { ...request.patch, ...resolveTarget(request.apiId, request.targetIntegration, context) };
        await gateway.updateRoute(request.apiId, request.routeId, patch, { signal });
        return;
      }
      case "deleteRoute":
        await gateway.deleteRoute(request.apiId, request.routeId, { signal });
        return;
      default:
        return;
    }
  },
};

/**
 * DESIGN.md §3: sending authorizerId always sends authorizationType; detaching an authorizer sets
 * authorizationType NONE (unless the document says otherwise).
 */
function withAuthorizerPairing(patch: Record<string, unknown>, spec: RouteDocument["spec"], live: Route): Record<string, unknown> {
  if (!("authorizerId" in patch) || "authorizationType" in patch) return patch;
  if (patch.authorizerId === null) return { ...patch, authorizationType: spec.authorizationType ?? "NONE" };
  return { ...patch, authorizationType: spec.authorizationType ?? live.authorizationType ?? "NONE" };
}

function resolveTarget(apiId: string, name: string | undefined, context: ApplyContext): { target?: string } {
  if (!name) return {};
  const id = context.integrationIds.get(`${apiId}/${name}`);
  if (!id) throw new Error(`route target integration ${JSON.stringify(name)} of API ${apiId} was not created, so the route cannot target it`);
  return { target: `integrations/${id}` };
}

/**
 * Creates a route without duplicating it: after an ambiguous failure, a live route with the key is
 * adopted; so is one that another run created meanwhile (the service answers 409 to the duplicate key).
 */
async function createRouteOnce(apiId: string, body: Route, context: ApplyContext): Promise<void> {
  const gateway = context.clients.gateway;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await gateway.createRoute(apiId, body, { signal: context.signal });
      return;
    } catch (error) {
      const taken = isConflict(error);
      if (!(isAmbiguousWrite(error) || taken) || attempt >= context.createAttempts) throw error;
      const existing = (await collect(gateway.routes(apiId, { signal: context.signal }))).find((live) => live.routeKey === body.routeKey);
      if (!existing && taken) throw error;
      if (existing) {
        context.notice(`adopted route ${existing.routeId} (${existing.routeKey}) created ${taken ? "meanwhile by another run" : "by an attempt whose answer was lost"}`);
        if (existing.target !== body.target) await gateway.updateRoute(apiId, existing.routeId, { target: body.target ?? null }, { signal: context.signal });
        return;
      }
    }
  }
}
