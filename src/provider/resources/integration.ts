import type { IntegrationRequest } from "../../reconcile/kinds/integration.js";
import type { IntegrationDocument } from "../../desired/schema.js";
import { integrationIds, matchesNaturalKey } from "../../reconcile/kinds/integration-identity.js";
import type { LiveState } from "../../reconcile/model.js";
import { INTEGRATION_FIELDS, type Integration } from "../../contract/gateway.js";
import { kindResource, type KindBinding, type Values } from "../kind-resource.js";
import { types } from "../runtime/index.js";
import { attributeOfPath, liveValuesOf, specAttributes, specFields, specFromValues } from "../terraform-fields.js";
import { parseImportId } from "./import-id.js";
import { isNaturalImportId, oneMatch, parseNaturalImportId } from "./natural-import-id.js";
import { NATURAL_KEY_FIELDS } from "../../desired/kinds/integration.js";
import { fieldAttribute } from "../../desired/terraform-attributes.js";

/** An integration's spec fields as attributes: every integration field of the service, the two it fills in computed too. */
const FIELDS = specFields(INTEGRATION_FIELDS, {
  required: ["integrationType"],
  defaulted: ["connectionType", "timeoutInMillis"],
  descriptions: {
    integrationType: "CLOUD, HTTP, MOCK, HTTP_PROXY or CLOUD_PROXY. Updated in place.",
    integrationUri: "The backend: a URL for HTTP types, a function ARN for CLOUD types.",
    payloadFormatVersion: "Required on an HTTP API (`1.0` or `2.0`).",
    timeoutInMillis: "50 to 30000 on an HTTP API, 50 to 29000 on a WebSocket API; the service's default (30000, 29000) when left out.",
    connectionType: "INTERNET or VPC_LINK; the service's INTERNET when left out.",
  },
});


/** The logical name the resource's document has: one document per apply, so one name does. */
const NAME = "terraform";

const schema = {
  description: "An integration of an HTTP or WebSocket API (converge's `Integration` kind).",
  attributes: {
    id: { type: types.string, computed: true, description: "`API_ID/INTEGRATION_ID`, the import ID." },
    api_id: { type: types.string, required: true, requiresReplace: true, description: "The API the integration belongs to; changing it replaces the integration." },
    integration_id: { type: types.string, computed: true, description: "The service's ID of the integration (routes target `integrations/<integration_id>`)." },
    api_gateway_managed: { type: types.bool, computed: true, description: "Whether the service manages the integration (an API's quick-created one): converge updates it but never deletes it." },
    ...specAttributes(FIELDS),
  },
};

/** The live integrations of the document's API that its natural key matches (as converge matches an unpinned one). */
function naturalKeyMatches(live: LiveState, document: IntegrationDocument): { readonly apiId: string; readonly matches: Integration[] } | undefined {
  // the resource's document names its API by ID (api_id)
  const api = typeof document.api === "string" ? live.apis[document.api] : undefined;
  if (api === undefined) return undefined;
  const spec = document.spec as Readonly<Record<string, unknown>>;
  return { apiId: api.apiId, matches: api.integrations.filter((integration) => matchesNaturalKey(spec, integration)) };
}

function integrationOf(values: Values, live: LiveState, integrationId: unknown): Integration | undefined {
  return typeof values.api_id === "string" ? live.apis[values.api_id]?.integrations.find((integration) => integration.integrationId === integrationId) : undefined;
}

/** `converge_integration`: converge's Integration kind in terraform. */
export const integrationBinding: KindBinding = {
  kind: "Integration",
  typeName: "converge_integration",
  schema,
  fields: FIELDS,
  identityAttributes: ["api_id"],

  document: (values, { pin, ensure }) => ({
    kind: "Integration",
    name: NAME,
    ...(typeof values.api_id === "string" ? { api: values.api_id } : {}),
    ...(ensure ? { ensure } : {}),
    spec: { ...specFromValues(FIELDS, values), ...(typeof pin?.integration_id === "string" ? { integrationId: pin.integration_id } : {}) },
  }),
  attributeOf: (path) => attributeOfPath(FIELDS, path, ["integrationId"]),
  liveOf: (state, live) => integrationOf(state, live, state.integration_id),
  /** After apply, the integration the apply recorded for the document (created, adopted or updated); before, the one the plan matched. */
  matched(action, values, live, context) {
    if (context && typeof values.api_id === "string") return integrationOf(values, live, integrationIds(context).get(`${values.api_id}/${NAME}`));
    const request = action.request as IntegrationRequest | undefined;
    return request && "integrationId" in request ? integrationOf(values, live, request.integrationId) : undefined;
  },
  liveValues: (integration) => liveValuesOf(FIELDS, integration as Integration),
  state(live, specValues, held) {
    const integration = live as Integration;
    return {
      id: `${held.api_id}/${integration.integrationId}`,
      api_id: held.api_id ?? null,
      integration_id: integration.integrationId,
      api_gateway_managed: integration.apiGatewayManaged ?? false,
      ...specValues,
    };
  },
  importId(id) {
    const [apiId, integrationId] = parseImportId(id, "converge_integration", ["API_ID", "INTEGRATION_ID"]);
    return { id, api_id: apiId!, integration_id: integrationId! };
  },
  /** A document's integration: `API_ID/INTEGRATION_ID` when pinned, else its natural key's fields it sets. */
  importIdOf(document) {
    const { api, spec } = document as IntegrationDocument;
    if (spec.integrationId !== undefined) return `${String(api)}/${spec.integrationId}`;
    const fields = NATURAL_KEY_FIELDS.filter((field) => typeof spec[field] === "string");
    return `${String(api)}?${fields.map((field) => `${fieldAttribute(field)}=${encodeURIComponent(spec[field] as string)}`).join("&")}`;
  },
  /**
   * `API_ID?integration_type=…&integration_uri=…` (any of the natural key's attributes): the one live
   * integration of the API that matches, by converge's own rule (a key field left out matches anything).
   */
  naturalImport(id) {
    if (!isNaturalImportId(id)) return undefined;
    const attributes = NATURAL_KEY_FIELDS.map((field) => fieldAttribute(field));
    const natural = parseNaturalImportId(id, "converge_integration", attributes, ["integration_type"]);
    const spec = Object.fromEntries(NATURAL_KEY_FIELDS.filter((field) => Object.hasOwn(natural.attributes, fieldAttribute(field))).map((field) => [field, natural.attributes[fieldAttribute(field)]]));
    const matching = (integration: Integration) => matchesNaturalKey(spec, integration);
    return {
      values: { api_id: natural.apiId },
      find: (live) => oneMatch(live.apis[natural.apiId]?.integrations.filter(matching) ?? [], id, "converge_integration", (integration) => integration.integrationId, natural.apiId),
    };
  },
  describe: (live) => {
    const integration = live as Integration;
    return `integration ${integration.integrationId} (${[integration.integrationType, integration.integrationMethod, integration.integrationUri].filter(Boolean).join(" ")})`;
  },
  requestFields(action) {
    const request = action.request as IntegrationRequest | undefined;
    if (request?.op === "createIntegration") return request.body;
    if (request?.op === "updateIntegration") return request.patch;
    return {};
  },
  /** Integrations of one natural key are several live resources, each held by its ID. */
  holding: {
    heldKey: (state) => (typeof state.api_id === "string" && typeof state.integration_id === "string" ? `${state.api_id}/${state.integration_id}` : undefined),
    matches(live, document) {
      const found = naturalKeyMatches(live, document as IntegrationDocument);
      return found === undefined ? [] : found.matches.map((integration) => `${found.apiId}/${integration.integrationId}`);
    },
    only(live, document, key) {
      const found = naturalKeyMatches(live, document as IntegrationDocument);
      if (found === undefined) return live;
      const api = live.apis[found.apiId]!;
      const others = new Set(found.matches.map((integration) => `${found.apiId}/${integration.integrationId}`).filter((match) => match !== key));
      const integrations = api.integrations.filter((integration) => !others.has(`${found.apiId}/${integration.integrationId}`));
      return { ...live, apis: { ...live.apis, [found.apiId]: { ...api, integrations } } };
    },
  },
  /**
   * A delete planned now is judged without the API's routes: terraform deletes the routes that
   * target the integration first, and the apply judges the delete again against what is left.
   */
  beforeDelete: (live) => ({
    ...live,
    apis: Object.fromEntries(Object.entries(live.apis).map(([apiId, api]) => [apiId, { ...api, routes: [] }])),
  }),
};

export const integrationResource = kindResource(integrationBinding);
