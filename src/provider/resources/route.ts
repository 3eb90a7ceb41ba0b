import type { RouteRequest } from "../../reconcile/kinds/route.js";
import type { RouteDocument } from "../../desired/schema.js";
import type { LiveState } from "../../reconcile/model.js";
import { ROUTE_FIELDS, type Route } from "../../contract/gateway.js";
import { kindResource, type KindBinding, type Values } from "../kind-resource.js";
import { types } from "../runtime/index.js";
import { attributeOfPath, liveValuesOf, specAttributes, specFields, specFromValues } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";
import { isNaturalImportId, oneMatch, parseNaturalImportId } from "./natural-import-id.js";

/** A route's spec fields as attributes: the service's route fields, scopes as a set, the two it fills in computed too. */
const FIELDS = specFields(ROUTE_FIELDS, {
  required: ["routeKey"],
  defaulted: ["authorizationType", "apiKeyRequired"],
  sets: ["authorizationScopes"],
  descriptions: {
    routeKey: 'The route key: `$default` or `"METHOD /path"` on an HTTP API, any expression value on a WebSocket API. Updated in place (never for a route the service manages).',
    target: 'Where the route sends requests: `"integrations/${converge_integration.NAME.integration_id}"`.',
    authorizationType: "NONE, JWT, CLOUD_IAM or CUSTOM (HTTP APIs); NONE, CLOUD_IAM or CUSTOM (WebSocket APIs). The service's NONE when left out.",
    authorizationScopes: "Scopes a JWT must claim one of (compared as a set).",
    apiKeyRequired: "WebSocket APIs only. The service's false when left out.",
  },
});


const schema = {
  description: "A route of an HTTP or WebSocket API (converge's `Route` kind).",
  attributes: {
    id: { type: types.string, computed: true, description: "`API_ID/ROUTE_ID`, the import ID." },
    api_id: { type: types.string, required: true, requiresReplace: true, description: "The API the route belongs to; changing it replaces the route." },
    route_id: { type: types.string, computed: true, description: "The service's ID of the route." },
    api_gateway_managed: { type: types.bool, computed: true, description: "Whether the service manages the route (an API's quick-created `$default` route): converge never deletes it nor changes its route key." },
    ...specAttributes(FIELDS),
  },
};

function routeOf(state: Values, live: LiveState): Route | undefined {
  return typeof state.api_id === "string" ? live.apis[state.api_id]?.routes.find((route) => route.routeId === state.route_id) : undefined;
}

/** `converge_route`: converge's Route kind in terraform. */
export const routeBinding: KindBinding = {
  kind: "Route",
  typeName: "converge_route",
  schema,
  fields: FIELDS,
  identityAttributes: ["api_id"],

  document: (values, { pin, ensure }) => ({
    kind: "Route",
    ...(typeof values.api_id === "string" ? { api: values.api_id } : {}),
    ...(ensure ? { ensure } : {}),
    spec: { ...specFromValues(FIELDS, values), ...(typeof pin?.route_id === "string" ? { routeId: pin.route_id } : {}) },
  }),
  attributeOf: (path) => attributeOfPath(FIELDS, path, ["routeId"]),
  liveOf: routeOf,
  matched(_action, values, live) {
    if (typeof values.route_id === "string") return routeOf(values, live);
    return typeof values.api_id === "string" ? live.apis[values.api_id]?.routes.find((route) => route.routeKey === values.route_key) : undefined;
  },
  liveValues: (route) => liveValuesOf(FIELDS, route as Route),
  state(live, specValues, held) {
    const route = live as Route;
    return { id: `${held.api_id}/${route.routeId}`, api_id: held.api_id ?? null, route_id: route.routeId, api_gateway_managed: route.apiGatewayManaged ?? false, ...specValues };
  },
  importId(id) {
    const [apiId, routeId] = parseImportId(id, "converge_route", ["API_ID", "ROUTE_ID"]);
    return { id, api_id: apiId!, route_id: routeId! };
  },
  /** A document's route: `API_ID/ROUTE_ID` when pinned, else `API_ID?route_key=KEY` (its API by ID; moved-from-terraform-data.ts refuses another). */
  importIdOf(document) {
    const { api, spec } = document as RouteDocument;
    return spec.routeId !== undefined ? `${String(api)}/${spec.routeId}` : `${String(api)}?route_key=${encodeURIComponent(spec.routeKey)}`;
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
  describe: (live) => `route ${(live as Route).routeId} (${(live as Route).routeKey})`,
  requestFields(action) {
    const request = action.request as RouteRequest | undefined;
    if (request?.op === "createRoute") return request.body;
    if (request?.op === "updateRoute") return request.patch;
    return {};
  },
};

export const routeResource = kindResource(routeBinding);
