import { liveKeyOf } from "../live-keys.js";
import { ROUTE_RULES, routeModel } from "../../desired/kinds/route.js";
import type { z } from "zod";
import type { RouteDocument, RouteTarget } from "../../desired/schema.js";
import { resourceTypeOf } from "../../desired/terraform-attributes.js";
import { ROUTE_FIELDS, routeServerDefaults, type Route } from "../../contract/gateway.js";
import { fieldOrder, exportedSpec, terraformSlug } from "../export-fields.js";
import { collect, isAmbiguousWrite, isConflict } from "../../clients/index.js";
import { bodyOf, diffFields, patchOf } from "../diff.js";
import { PHASE, type ActionRequest, type FieldChange, type LiveState } from "../model.js";
import { creationChanges, decide, type ApplyContext, type ExportableApi, type KindEngine, type ProtectionContext, type ExportedDocument } from "./kind-engine.js";
import { resolveGatewayDocument, routeAddress } from "./gateway-common.js";
import { integrationIds, resolvedIntegrationId } from "./integration-identity.js";

const sortedSet = (value: unknown) => (Array.isArray(value) ? [...value].sort() : value);

/** The requests of the Route engine (`targetIntegration`: the logical name of an integration this apply creates). */
export type RouteRequest =
  | { readonly op: "createRoute"; readonly apiId: string; readonly body: Readonly<Record<string, unknown>>; readonly targetIntegration?: string | undefined }
  | { readonly op: "updateRoute"; readonly apiId: string; readonly routeId: string; readonly patch: Readonly<Record<string, unknown>>;
    readonly targetIntegration?: string | undefined }
  | { readonly op: "deleteRoute"; readonly apiId: string; readonly routeId: string };

/**
 * Route: matched by (API, routeKey), or a pinned routeId. A target `{integration: name}` resolves
 * to `integrations/<id>` of that integration (at apply time when it is created in the same run).
 */
export const routeEngine = {
  model: routeModel,
  planOrder: 1,
  ops: ["createRoute", "updateRoute", "deleteRoute"],

  plan(loaded, context) {
    const document = loaded.document;
    const resolved = resolveGatewayDocument(loaded, ROUTE_RULES, context);
    if ("failed" in resolved) return resolved.failed;
    const { apiId, protocolType, liveApi } = resolved;
    const spec = document.spec;

    // pinned routes plan first; a route a pin claimed (perhaps to rename it) is not matched by key again
    const match = spec.routeId !== undefined
      ? liveApi.routes.find((live) => live.routeId === spec.routeId)
      : liveApi.routes.find((live) => live.routeKey === spec.routeKey && !context.isClaimed("routes", apiId, live.routeId));
    if (match) context.claim("routes", apiId, match.routeId);

    // the target: a resolved "integrations/<id>", or the name of an integration created in this run
    let target: string | null | undefined;
    let targetIntegration: string | undefined;
    if (spec.target === null || typeof spec.target === "string") target = spec.target;
    else if (spec.target) {
      const id = resolvedIntegrationId(context, apiId, spec.target.integration);
      if (id === undefined || id === "pending") targetIntegration = spec.target.integration;
      else target = `integrations/${id}`;
    }
    const desired = { ...spec, target } as Record<string, unknown>;
    const pendingTarget = (before: unknown): FieldChange[] =>
      (targetIntegration ? [{ path: "target", before, after: `integrations/(${targetIntegration}, created by this apply)` }] : []);

    return decide<Route>({
      base: {
        kind: "Route",
        address: routeAddress(apiId, spec.routeKey),
        name: document.name ?? spec.routeKey,
        identity: `${apiId}/${spec.routeKey}`,
        source: loaded.source,
      },
      ensure: document.ensure,
      live: match,
      phases: { present: PHASE.routes, create: PHASE.routeCreates, delete: PHASE.routeDeletes },
      delete: (live) => ({ op: "deleteRoute", apiId, routeId: live.routeId }),
      create() {
        if (spec.routeId !== undefined) return { refused: `pinned routeId ${spec.routeId} does not exist in API ${apiId}: remove the pin to create the route` };
        const body = bodyOf(desired, ["routeId"]);
        return { changes: [...creationChanges(body), ...pendingTarget(null)], request: { op: "createRoute", apiId, body, targetIntegration } };
      },
      compare(live) {
        const options = { defaults: routeServerDefaults(protocolType), ignore: ["routeId"], normalize: { authorizationScopes: sortedSet } };
        const changes = [...diffFields(desired, live as Record<string, unknown>, options), ...pendingTarget(live.target ?? null)];
        const patch = withAuthorizerPairing(patchOf(changes.filter((change) => !(targetIntegration && change.path === "target"))), spec, live);
        return { changes, request: { op: "updateRoute", apiId, routeId: live.routeId, patch, targetIntegration } };
      },
    });
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
    }
  },

  liveResources: (live) => Object.values(live.apis).flatMap((api) => api.routes.map((route) => ({
    key: liveKeyOf("routes", api.apiId, route.routeId),
    address: routeAddress(api.apiId, route.routeKey),
    identity: `${api.apiId}/${route.routeKey}`,
    serviceManaged: route.apiGatewayManaged === true,
  }))),
  unclaimed: (api, context, { source, reason }) => api.routes.filter((route) => !context.isClaimed("routes", api.apiId, route.routeId)).map((route) => ({
    kind: "Route", address: routeAddress(api.apiId, route.routeKey), name: route.routeKey, identity: unclaimedIdentity(api.apiId, route), source,
    type: "delete", phase: PHASE.routeDeletes, changes: [], reason, request: { op: "deleteRoute", apiId: api.apiId, routeId: route.routeId },
  })),

  refusal: (request, _action, context) => (request.op === "createRoute" ? undefined : routeRefusal(request, context.live)),

  deleted: (request) => (request.op === "deleteRoute"
    ? { description: `route ${request.routeId}`, claim: { collection: "routes", apiId: request.apiId, id: request.routeId } }
    : undefined),

  awaits: (request) => (request.op !== "deleteRoute" && request.targetIntegration !== undefined
    ? { key: `${request.apiId}/${request.targetIntegration}`, name: request.targetIntegration }
    : undefined),

  exportOrder: 2,
  exportApi: (api, names) => exportRoutes(api, names),
  /** `converge_route` (src/provider/resources/route.ts), imported by `API_ID/ROUTE_ID` (the live route of its key); a target naming an integration refers to its resource. */
  terraformExport: {
    fields: ROUTE_FIELDS,
    label: (document) => terraformSlug(String((document as RouteInput).spec.routeKey)) || "route",
    importId(document, live) {
      const { api, spec } = document as RouteInput;
      const route = live.apis[String(api)]?.routes.find((candidate) => candidate.routeKey === spec.routeKey);
      return route === undefined ? undefined : `${String(api)}/${route.routeId}`;
    },
    reference(field, value) {
      if (field !== "target" || typeof value !== "object" || value === null || !("integration" in value)) return undefined;
      return { type: resourceTypeOf("Integration"), name: String(value.integration), attribute: "integration_id", prefix: "integrations/" };
    },
  },
  flowPaths: [["spec", "target"]],
  unmanagedChildren: {
    identities: (api) => api.routes.map((route) => unclaimedIdentity(api.apiId, route)),
    keep: (api, identities) => ({ ...api, routes: api.routes.filter((route) => identities.has(unclaimedIdentity(api.apiId, route))) }),
  },
} satisfies KindEngine<RouteDocument, RouteRequest>;

/** A live route's identity when no document declares it: `API_ID/ROUTE_KEY`, as a document's. */
function unclaimedIdentity(apiId: string, route: Route): string {
  return `${apiId}/${route.routeKey}`;
}

/** Never delete a service-managed route, never change its route key. */
function routeRefusal(request: Exclude<RouteRequest, { op: "createRoute" }>, live: LiveState): string | undefined {
  const route = live.apis[request.apiId]?.routes.find((candidate) => candidate.routeId === request.routeId);
  if (route?.apiGatewayManaged && request.op === "deleteRoute") {
    return `route ${route.routeId} (${route.routeKey}) is managed by the service (quick create): converge never deletes it`;
  }
  if (route?.apiGatewayManaged && request.op === "updateRoute" && "routeKey" in request.patch && request.patch.routeKey !== route.routeKey) {
    return `route ${route.routeId} is managed by the service (quick create): converge never changes its route key ${JSON.stringify(route.routeKey)}`;
  }
  return undefined;
}

/**
 * The routes of an API that will target `target` once the plan is applied (route IDs, or `new:<address>`
 * for routes the plan creates), for the protection that never deletes an integration a route still
 * targets. A route action the protections refuse is never sent, so that route keeps its live target.
 */
export function routesTargeting(context: ProtectionContext, apiId: string, target: string): string[] {
  const finalTargets = context.memo("final-route-targets", () => {
    const targets = new Map<string, string | undefined>();
    for (const api of Object.values(context.live.apis)) for (const route of api.routes) targets.set(`${api.apiId}/${route.routeId}`, route.target);
    for (const action of context.actions) {
      const request = action.request;
      if (!isRouteRequest(request)) continue;
      if (request.op === "createRoute") {
        if (typeof request.body.target === "string") targets.set(`${request.apiId}/new:${action.address}`, request.body.target);
        continue;
      }
      if (routeRefusal(request, context.live)) continue;
      const key = `${request.apiId}/${request.routeId}`;
      if (request.op === "deleteRoute") targets.set(key, undefined);
      else if ("target" in request.patch) targets.set(key, (request.patch.target as string | null) ?? undefined);
      // retargeted to an integration this apply creates: the patch holds no target, yet the live one is left
      if (request.op === "updateRoute" && request.targetIntegration) targets.set(key, `integrations/(${request.targetIntegration}, created by this apply)`);
    }
    return targets;
  });
  return [...finalTargets].filter(([key, value]) => key.startsWith(`${apiId}/`) && value === target).map(([key]) => key.slice(apiId.length + 1));
}

/** Whether a request is one of the Route engine's. */
export function isRouteRequest(request: ActionRequest | undefined): request is RouteRequest {
  return request !== undefined && (routeEngine.ops as ReadonlyArray<string>).includes(request.op);
}

/**
 * docs/manual/desired-state.md, "Identity, diff, protections": sending authorizerId always sends authorizationType; detaching an authorizer sets
 * authorizationType NONE (unless the document says otherwise).
 */
function withAuthorizerPairing(patch: Record<string, unknown>, spec: RouteDocument["spec"], live: Route): Record<string, unknown> {
  if (!("authorizerId" in patch) || "authorizationType" in patch) return patch;
  if (patch.authorizerId === null) return { ...patch, authorizationType: spec.authorizationType ?? "NONE" };
  return { ...patch, authorizationType: spec.authorizationType ?? live.authorizationType ?? "NONE" };
}

function resolveTarget(apiId: string, name: string | undefined, context: ApplyContext): { target?: string } {
  if (!name) return {};
  const id = integrationIds(context).get(`${apiId}/${name}`);
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
        context.notice(`adopted route ${existing.routeId} (${existing.routeKey}) `
          + `created ${taken ? "meanwhile by another run" : "by an attempt whose answer was lost"}`);
        if (existing.target !== body.target) await gateway.updateRoute(apiId, existing.routeId, { target: body.target ?? null }, { signal: context.signal });
        return;
      }
    }
  }
}

type RouteInput = z.input<typeof RouteDocument>;

/** Field order in exported specs: identity first, as the examples write them; then the rest in wire order. */
const ROUTE_FIELD_ORDER = fieldOrder(
  ["routeKey", "target", "authorizationType", "authorizerId", "authorizationScopes", "apiKeyRequired", "operationName"],
  Object.keys(ROUTE_FIELDS),
);

/**
 * An API's routes as documents, whose targets name the exported integration they point at; managed
 * ones apart. A route that targets a managed integration targets it by ID (that integration is no
 * document of the file), unless the route is managed too (both are comments).
 */
function exportRoutes(api: ExportableApi, names: ReadonlyMap<string, string>): { documents: ExportedDocument[]; commented: ExportedDocument[] } {
  const managedIntegrationIds = new Set(api.integrations
    .filter((integration) => integration.apiGatewayManaged)
    .map((integration) => integration.integrationId));
  const document = (route: Route, targetsByName: boolean): ExportedDocument => {
    const fields = exportedSpec(route, ROUTE_FIELD_ORDER, routeServerDefaults(api.protocolType));
    const id = route.target?.startsWith("integrations/") ? route.target.slice("integrations/".length) : undefined;
    const name = id !== undefined && (targetsByName || !managedIntegrationIds.has(id)) ? names.get(id) : undefined;
    if (name !== undefined) fields.target = { integration: name } satisfies RouteTarget;
    return { kind: "Route", api: api.apiId, spec: fields as z.input<typeof RouteDocument>["spec"] };
  };
  return {
    documents: api.routes.filter((route) => !route.apiGatewayManaged).map((route) => document(route, false)),
    commented: api.routes.filter((route) => route.apiGatewayManaged).map((route) => document(route, true)),
  };
}
