import { apiRefKey } from "../api-ref.js";
import type { IntegrationDocument } from "../schema.js";
import { INTEGRATION_FIELDS, integrationProtocolIssues } from "../../contract/gateway.js";
import { commonGatewayProblems, type GatewayRules } from "./gateway-checks.js";
import { groupBy, problemAt, type ApiKeyOf, type KindModel } from "./kind-model.js";

/** The fields that identify an integration when no integrationId is pinned (docs/manual/desired-state.md, "Identity, diff, protections"). */
export const NATURAL_KEY_FIELDS = ["integrationType", "integrationUri", "integrationMethod", "connectionType", "connectionId", "integrationSubtype"] as const;

/** The API and natural key of a document, as one comparable string (the key fields are strings or absent). */
function naturalKeyOf(document: IntegrationDocument, apiKey: ApiKeyOf): string {
  let key = apiKey(document.api);
  for (const field of NATURAL_KEY_FIELDS) key += `\u0000${document.spec[field] ?? "\u0001"}`;
  return key;
}

/** An integration's protocol rules (payloadFormatVersion is required only to create one) and pin. */
export const INTEGRATION_RULES: GatewayRules = {
  protocolIssues: (protocol, spec, prefix, creating) =>
    integrationProtocolIssues(protocol, spec as Parameters<typeof integrationProtocolIssues>[1], prefix, { requirePayloadFormatVersion: creating }),
  pinField: "integrationId",
  noun: "integration",
};

/**
 * Integration: identity (API, logical name); it is matched to a live integration by a pinned
 * integrationId, else by its natural key, so two documents of one API may not share a natural key
 * without a pin.
 */
export const integrationModel: KindModel<IntegrationDocument> = {
  kind: "Integration",
  identity: (document, apiKey = apiRefKey) => `${apiKey(document.api)}/${document.name}`,
  displayName: (document) => document.name,
  pinned: (document) => document.spec.integrationId !== undefined,
  readKey: (document) => ({ type: "api", ref: document.api }),
  readKeyFields: [{ path: "api" }],
  terraform: {
    fields: INTEGRATION_FIELDS,
    required: ["integrationType"],
    defaulted: ["connectionType", "timeoutInMillis"],
    parent: "api",
    idField: "integrationId",
    named: true,
  },
  deletionIdentity: (document) => ({
    kind: "Integration",
    name: document.name,
    api: document.api,
    spec: Object.fromEntries([...NATURAL_KEY_FIELDS, "integrationId" as const]
      .filter((field) => document.spec[field] !== undefined)
      .map((field) => [field, document.spec[field]])),
  }),

  crossCheck(loaded, index) {
    const document = loaded.document;
    const problems = commonGatewayProblems(loaded, INTEGRATION_RULES, index);
    if (document.spec.integrationId === undefined && document.ensure === "present") {
      const twins = index.memo("integration-natural-keys", () => groupBy(index.documents, (other) =>
        other.document.kind === "Integration" && other.document.spec.integrationId === undefined && other.document.ensure === "present"
          ? naturalKeyOf(other.document, index.apiKey) : undefined));
      const twin = twins.get(naturalKeyOf(document, index.apiKey))?.find((other) => other !== loaded);
      if (twin) {
        problems.push(problemAt(loaded, ["spec"], `integration ${JSON.stringify(document.name)} `
          + `has the same natural key (${NATURAL_KEY_FIELDS.join(", ")}) as ${JSON.stringify((twin.document as IntegrationDocument).name)} `
          + `at ${twin.source.file}:${twin.source.line}: pin one with spec.integrationId`));
      }
    }
    return problems;
  },
};
