import type { Document } from "../../desired/schema.js";
import { isIntegrationRequest } from "../../reconcile/kinds/integration.js";
import type { IntegrationRequest } from "../../reconcile/kinds/integration-request.js";
import { integrationIds, matchesNaturalKey } from "../../reconcile/kinds/integration-identity.js";
import type { LiveApi, LiveState } from "../../reconcile/model.js";
import type { Integration } from "../../contract/gateway.js";
import {
  kindResource,
  type BindingWithDeleteView,
  type BindingWithHolding,
  type BindingWithMoves,
  type BindingWithNaturalImport,
  type KindBinding,
  type Values,
} from "../kind-resource/index.js";
import { liveValuesOf } from "../terraform-fields.js";
import { apiOf, gatewayChild } from "./gateway-child.js";
import { NATURAL_KEY_FIELDS } from "../../desired/kinds/integration.js";
import { INTEGRATION_DOCUMENT_NAME as NAME, integrationDocument } from "./integration-document.js";

/** The live integrations of the document's API that its natural key matches (as converge matches an unpinned one). */
function naturalKeyMatches(live: LiveState, document: Document): { readonly api: LiveApi; readonly matches: Integration[] } | undefined {
  // the resource's document names its API by ID (api_id)
  if (document.kind !== "Integration" || typeof document.api !== "string") return undefined;
  const api = live.apis[document.api];
  if (api === undefined) return undefined;
  return { api, matches: api.integrations.filter((integration) => matchesNaturalKey(document.spec, integration)) };
}

function integrationOf(values: Values, live: LiveState, integrationId: unknown): Integration | undefined {
  return apiOf(values, live)?.integrations.find((integration) => integration.integrationId === integrationId);
}

/**
 * converge's Integration kind, in terraform: its binding (how its values become the kind's document,
 * where its live counterpart is), which imports by its natural key, takes moved state, holds one of
 * the live integrations a natural key may name, and judges a delete without the API's routes.
 */
export const integrationBinding: KindBinding<Integration> & BindingWithNaturalImport<Integration> & BindingWithMoves & BindingWithHolding & BindingWithDeleteView = {
  ...gatewayChild<Integration, IntegrationRequest>({
    document: integrationDocument,
    idNote: "(routes target `integrations/<integration_id>`)",
    managedDescription: "Whether the service manages the integration (an API's quick-created one): converge updates it but never deletes it.",
    children: (api) => api.integrations,
    idOf: (integration) => integration.integrationId,
    /** `API_ID?integration_type=…&integration_uri=…` (any of the natural key's attributes), by converge's own rule (a key field left out matches anything). */
    naturalKey: { fields: NATURAL_KEY_FIELDS, required: ["integrationType"], matches: (key, integration) => matchesNaturalKey(key, integration) },
    requests: { is: isIntegrationRequest, sent: { createIntegration: "body", updateIntegration: "patch" } },
  }),
  /** After apply, the integration the apply recorded for the document (created, adopted or updated); before, the one the plan matched. */
  matched({ request }, values, live, context) {
    if (context && typeof values.api_id === "string") return integrationOf(values, live, integrationIds(context).get(`${values.api_id}/${NAME}`));
    return isIntegrationRequest(request) && "integrationId" in request ? integrationOf(values, live, request.integrationId) : undefined;
  },
  liveValues: (integration) => liveValuesOf(integrationDocument.fields, integration),
  describe: (integration) => `integration ${integration.integrationId} (${[integration.integrationType, integration.integrationMethod, integration.integrationUri].filter(Boolean).join(" ")})`,
  /** Integrations of one natural key are several live resources, each held by its ID. */
  holding: {
    heldKey: (state) => (typeof state.api_id === "string" && typeof state.integration_id === "string" ? `${state.api_id}/${state.integration_id}` : undefined),
    matches(live, document) {
      const found = naturalKeyMatches(live, document);
      return found === undefined ? [] : found.matches.map((integration) => `${found.api.apiId}/${integration.integrationId}`);
    },
    only(live, document, key) {
      const found = naturalKeyMatches(live, document);
      if (found === undefined) return live;
      const { api } = found;
      const others = new Set(found.matches.map((integration) => `${api.apiId}/${integration.integrationId}`).filter((match) => match !== key));
      const integrations = api.integrations.filter((integration) => !others.has(`${api.apiId}/${integration.integrationId}`));
      return { ...live, apis: { ...live.apis, [api.apiId]: { ...api, integrations } } };
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

/** The Integration kind's resource: the shared flow of kind-resource/ over integrationBinding. */
export const integrationResource = kindResource<Integration>(integrationBinding);
