import { isRouteRequest, type RouteRequest } from "../../reconcile/kinds/route.js";
import type { Route } from "../../contract/gateway.js";
import { resourceTypeOf } from "../../desired/terraform-attributes.js";
import { terraformResourceOf } from "../../desired/terraform-resources.js";
import { kindResource, type KindBinding } from "../kind-resource/index.js";
import { liveValuesOf, specFields } from "../terraform-fields.js";
import { apiOf, gatewayChild } from "./gateway-child.js";

/** A route's spec fields as attributes: the service's route fields, scopes as a set, the two it fills in computed too. */
const FIELDS = specFields(terraformResourceOf("Route"), {
    routeKey: 'The route key: `$default` or `"METHOD /path"` on an HTTP API, any expression value on a WebSocket API. Updated in place (never for a route the service manages).',
    target: `Where the route sends requests: \`"integrations/\${${resourceTypeOf("Integration")}.NAME.integration_id}"\`.`,
    authorizationType: "NONE, JWT, CLOUD_IAM or CUSTOM (HTTP APIs); NONE, CLOUD_IAM or CUSTOM (WebSocket APIs). The service's NONE when left out.",
    authorizationScopes: "Scopes a JWT must claim one of (compared as a set).",
    apiKeyRequired: "WebSocket APIs only. The service's false when left out.",
});

const ROUTE = gatewayChild<Route, RouteRequest>({
  resource: terraformResourceOf("Route"),
  fields: FIELDS,
  managedDescription: "Whether the service manages the route (an API's quick-created `$default` route): converge never deletes it nor changes its route key.",
  children: (api) => api.routes,
  idOf: (route) => route.routeId,
  /** `API_ID?route_key=KEY`: the API's route of that key, as converge matches an unpinned route. */
  naturalKey: { fields: ["routeKey"], required: ["routeKey"], matches: (key, route) => route.routeKey === key.routeKey },
  requests: { is: isRouteRequest, sent: { createRoute: "body", updateRoute: "patch" } },
});

/** converge's Route kind, in terraform: its binding (how its values become the kind's document, where its live counterpart is). */
export const routeBinding: KindBinding<Route> = {
  ...ROUTE,
  matched(_action, values, live) {
    if (typeof values.route_id === "string") return ROUTE.liveOf(values, live);
    return apiOf(values, live)?.routes.find((route) => route.routeKey === values.route_key);
  },
  liveValues: (route) => liveValuesOf(FIELDS, route),
  describe: (route) => `route ${route.routeId} (${route.routeKey})`,
};

/** The Route kind's resource: the shared flow of kind-resource/ over routeBinding. */
export const routeResource = kindResource<Route>(routeBinding);
