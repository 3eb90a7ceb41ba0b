import { apiRefKey, isNameKey } from "../api-ref.js";
import type { LoadedDocument } from "../loaded-document.js";
import type { IntegrationDocument, RouteDocument } from "../schema.js";
import { ROUTE_FIELDS, routeProtocolIssues } from "../../contract/gateway.js";
import { commonGatewayProblems, type GatewayRules } from "./gateway-checks.js";
import { groupBy, problemAt, type DocumentIndex, type KindModel } from "./kind-model.js";

/** A route's protocol rules and pin. */
export const ROUTE_RULES: GatewayRules = {
  protocolIssues: (protocol, spec, prefix) => routeProtocolIssues(protocol, spec as Parameters<typeof routeProtocolIssues>[1], prefix),
  pinField: "routeId",
  noun: "route",
};

/**
 * Route: identity (API, routeKey), or a pinned routeId. A target `{integration: name}` must name an
 * Integration document of the same API.
 */
export const routeModel: KindModel<RouteDocument> = {
  kind: "Route",
  identity: (document, apiKey = apiRefKey) => `${apiKey(document.api)}/${document.spec.routeKey}`,
  displayName: (document) => document.name ?? document.spec.routeKey,
  pinned: (document) => document.spec.routeId !== undefined,
  readKey: (document) => ({ type: "api", ref: document.api }),
  readKeyFields: [{ path: "api" }],
  terraform: {
    fields: ROUTE_FIELDS,
    required: ["routeKey"],
    defaulted: ["authorizationType", "apiKeyRequired"],
    sets: ["authorizationScopes"],
    parent: "api",
    idField: "routeId",
  },
  deletionIdentity: (document) => ({
    kind: "Route",
    api: document.api,
    spec: { routeKey: document.spec.routeKey, ...(document.spec.routeId !== undefined ? { routeId: document.spec.routeId } : {}) },
  }),

  dependencies(document, documents) {
    const target = document.spec.target;
    if (!target || typeof target !== "object") return [];
    const key = apiRefKey(document.api);
    // by the same reference, else by a reference of the other form (an apiId and a name may be the same API)
    const named = documents.filter((other) => other.document.kind === "Integration" && other.document.name === target.integration);
    const apiKeyOf = (other: LoadedDocument) => apiRefKey((other.document as IntegrationDocument).api);
    const sameReference = named.filter((other) => apiKeyOf(other) === key);
    return sameReference.length > 0 ? sameReference : named.filter((other) => isNameKey(apiKeyOf(other)) !== isNameKey(key));
  },

  crossCheck(loaded, index) {
    const document = loaded.document;
    const key = index.apiKey(document.api);
    const problems = commonGatewayProblems(loaded, ROUTE_RULES, index);
    const target = document.spec.target;
    if (target && typeof target === "object" && document.ensure === "present") {
      const byName = index.memo("integrations-by-name", () => groupBy(index.documents, (other) =>
        other.document.kind === "Integration" ? `${index.apiKey(other.document.api)}/${other.document.name}` : undefined));
      const integration = byName.get(`${key}/${target.integration}`)?.[0];
      if (!integration) {
        if (!mayBeDeclaredUnderOtherReference(key, target.integration, index)) {
          problems.push(problemAt(loaded, ["spec", "target", "integration"], `target names integration ${JSON.stringify(target.integration)}, `
            + `but no Integration document of the same api declares that name`));
        }
      } else if (integration.document.ensure === "absent") {
        problems.push(problemAt(loaded, ["spec", "target", "integration"], `target names integration ${JSON.stringify(target.integration)}, `
          + `which is declared ensure: absent at ${integration.source.file}:${integration.source.line}`));
      }
    }
    return problems;
  },
};

/**
 * Offline, whether an Integration document of that name exists under a reference of the other form
 * (a name where the route gives an apiId, or the reverse): it may be the same API, which planning
 * tells once the name is resolved.
 */
function mayBeDeclaredUnderOtherReference(routeKey: string, name: string, index: DocumentIndex): boolean {
  if (index.resolved) return false;
  const named = index.memo("integrations-by-logical-name", () =>
    groupBy(index.documents, (other) => (other.document.kind === "Integration" ? other.document.name : undefined)));
  return (named.get(name) ?? []).some((other) => isNameKey(index.apiKey((other.document as IntegrationDocument).api)) !== isNameKey(routeKey));
}
