import { isRouteRequest, type RouteRequest } from "../../reconcile/kinds/route.js";
import type { Route } from "../../contract/gateway.js";
import { kindResource, type BindingWithMoves, type BindingWithNaturalImport, type KindBinding } from "../kind-resource/index.js";
import { liveValuesOf } from "../terraform-fields.js";
import { apiOf, gatewayChild } from "./gateway-child.js";
import { routeDocument } from "./route-document.js";

const ROUTE = gatewayChild<Route, RouteRequest>({
  document: routeDocument,
  managedDescription: "Whether the service manages the route (an API's quick-created `$default` route): converge never deletes it nor changes its route key.",
  children: (api) => api.routes,
  idOf: (route) => route.routeId,
  /** `API_ID?route_key=KEY`: the API's route of that key, as converge matches an unpinned route. */
  naturalKey: { fields: ["routeKey"], required: ["routeKey"], matches: (key, route) => route.routeKey === key.routeKey },
  requests: { is: isRouteRequest, sent: { createRoute: "body", updateRoute: "patch" } },
});

/** converge's Route kind, in terraform: its binding (how its values become the kind's document, where its live counterpart is), which imports by its natural key and takes moved state. */
export const routeBinding: KindBinding<Route> & BindingWithNaturalImport<Route> & BindingWithMoves = {
  ...ROUTE,
  matched(_action, values, live) {
    if (typeof values.route_id === "string") return ROUTE.liveOf(values, live);
    return apiOf(values, live)?.routes.find((route) => route.routeKey === values.route_key);
  },
  liveValues: (route) => liveValuesOf(routeDocument.fields, route),
  describe: (route) => `route ${route.routeId} (${route.routeKey})`,
};

/** The Route kind's resource: the shared flow of kind-resource/ over routeBinding. */
export const routeResource = kindResource<Route>(routeBinding);
