import { isRouteRequest } from "../../reconcile/kinds/route.js";
import type { Route } from "../../contract/gateway.js";
import { terraformResourceOf } from "../../desired/terraform-resources.js";
import { kindResource, type KindBinding } from "../kind-resource/index.js";
import { liveValuesOf, specFields } from "../terraform-fields.js";
import { naturalImportId } from "../../desired/terraform-attributes.js";
import { apiOf, gatewayChild } from "./gateway-child.js";
import { isNaturalImportId, oneMatch, parseNaturalImportId } from "./natural-import-id.js";

/** A route's spec fields as attributes: the service's route fields, scopes as a set, the two it fills in computed too. */
const FIELDS = specFields(terraformResourceOf("Route"), {
    routeKey: 'The route key: `$default` or `"METHOD /path"` on an HTTP API, any expression value on a WebSocket API. Updated in place (never for a route the service manages).',
    target: 'Where the route sends requests: `"integrations/${converge_integration.NAME.integration_id}"`.',
    authorizationType: "NONE, JWT, CLOUD_IAM or CUSTOM (HTTP APIs); NONE, CLOUD_IAM or CUSTOM (WebSocket APIs). The service's NONE when left out.",
    authorizationScopes: "Scopes a JWT must claim one of (compared as a set).",
    apiKeyRequired: "WebSocket APIs only. The service's false when left out.",
});

const ROUTE = gatewayChild<Route>({
  resource: terraformResourceOf("Route"),
  fields: FIELDS,
  managedDescription: "Whether the service manages the route (an API's quick-created `$default` route): converge never deletes it nor changes its route key.",
  children: (api) => api.routes,
  idOf: (route) => route.routeId,
});

/** `converge_route`: converge's Route kind, in terraform: its binding (how its values become the kind's document, where its live counterpart is). */
export const routeBinding: KindBinding<Route> = {
  ...ROUTE,
  matched(_action, values, live) {
    if (typeof values.route_id === "string") return ROUTE.liveOf(values, live);
    return apiOf(values, live)?.routes.find((route) => route.routeKey === values.route_key);
  },
  /** A document's route: `API_ID/ROUTE_ID` when pinned, else `API_ID?route_key=KEY` (its API by ID; moved-from-terraform-data.ts refuses another). */
  importIdOf(document) {
    if (document.kind !== "Route") throw new Error(`converge_route: expected a Route document, received a ${document.kind}`);
    const { api, spec } = document;
    return spec.routeId !== undefined ? `${String(api)}/${spec.routeId}` : naturalImportId(String(api), spec, ["routeKey"]);
  },
  /** `API_ID?route_key=KEY`: the API's route of that key, as converge matches an unpinned route. */
  naturalImport(id) {
    if (!isNaturalImportId(id)) return undefined;
    const { apiId, attributes } = parseNaturalImportId(id, "converge_route", ["route_key"], ["route_key"]);
    return {
      values: { api_id: apiId },
      find: (live) => oneMatch(live.apis[apiId]?.routes.filter((route) => route.routeKey === attributes.route_key) ?? [], id, "converge_route", (route) => route.routeId, apiId),
    };
  },
  liveValues: (route) => liveValuesOf(FIELDS, route),
  describe: (route) => `route ${route.routeId} (${route.routeKey})`,
  requestFields({ request }) {
    if (!isRouteRequest(request)) return {};
    if (request.op === "createRoute") return request.body;
    if (request.op === "updateRoute") return request.patch;
    return {};
  },
};

/** `converge_route`: the resource: the shared flow of kind-resource.ts over routeBinding. */
export const routeResource = kindResource<Route>(routeBinding);
