import { ACCOUNT_OPERATIONS, type AccountOperationName } from "../contract/account.js";
import { GATEWAY_OPERATIONS, type GatewayOperationName } from "../contract/gateway.js";
import type { OperationSpec } from "../contract/operation-table.js";
import { PROVIDER_NAME } from "../desired/terraform-attributes.js";
import { convergeValidation } from "./converge-validation.js";
import { API_DATA_SOURCE } from "./data-sources/api.js";
import { REGIONS_DATA_SOURCE } from "./data-sources/regions.js";
import { readProviderSchemas } from "./provider-schemas.js";
import { alternateContactDocument } from "./resources/alternate-contact-document.js";
import { integrationDocument } from "./resources/integration-document.js";
import { regionOptInDocument } from "./resources/region-opt-in-document.js";
import { routeDocument } from "./resources/route-document.js";
import { schemasFirstProvider, UNKNOWN } from "./runtime/index.js";
import { warmUp, type WarmCall } from "./runtime/warm-up.js";

/**
 * Valid configuration of each resource and data source and of the provider, as terraform validates
 * it: `warmUp` answers each once while the release's startup snapshot is built. A route's target is
 * unknown, as terraform validates one that names an integration of the same configuration.
 */
export const WARM_CALLS: ReadonlyArray<WarmCall> = [
  { rpc: "ValidateProviderConfig", typeName: PROVIDER_NAME, config: { endpoint: "http://127.0.0.1:4566", request_timeout: 30 } },
  {
    rpc: "ValidateResourceConfig",
    typeName: alternateContactDocument.typeName,
    config: { alternate_contact_type: "SECURITY", name: "Security team", title: "CISO", email_address: "security@example.com", phone_number: "+1-555-0100" },
  },
  { rpc: "ValidateResourceConfig", typeName: regionOptInDocument.typeName, config: { region_name: "ap-east-1", enabled: true } },
  {
    rpc: "ValidateResourceConfig",
    typeName: integrationDocument.typeName,
    config: { api_id: "a1b2c3d4e5", integration_type: "HTTP_PROXY", integration_uri: "https://svc.internal.example/api", integration_method: "ANY", payload_format_version: "1.0" },
  },
  { rpc: "ValidateResourceConfig", typeName: routeDocument.typeName, config: { api_id: "a1b2c3d4e5", route_key: "GET /orders/{id}", target: UNKNOWN } },
  { rpc: "ValidateResourceConfig", typeName: routeDocument.typeName, config: { api_id: "a1b2c3d4e5", route_key: "$default", target: "integrations/abc1234" } },
  { rpc: "ValidateDataResourceConfig", typeName: API_DATA_SOURCE, config: { name: "orders" } },
  { rpc: "ValidateDataResourceConfig", typeName: REGIONS_DATA_SOURCE, config: {} },
];

/**
 * Validation as terraform asks for it, answered while the snapshot is built (src/provider/main.ts):
 * the snapshot then holds that path's code compiled and zod's parsers of the kinds' schemas made,
 * which every process terraform starts to validate would otherwise make again. The provider's
 * definition (the clients, the engine) is not loaded: validation never needs it.
 */
export function warmUpValidation(): Promise<void> {
  const notLoaded = () => Promise.reject(new Error("the provider's definition is not loaded while its startup snapshot is built"));
  return warmUp(schemasFirstProvider(readProviderSchemas(), notLoaded, () => Promise.resolve(convergeValidation)), WARM_CALLS);
}

/** An answer of one operation, as its service writes it, for `warmUpAnswers`. */
export interface WarmAnswer {
  readonly operation: string;
  readonly spec: OperationSpec;
  readonly answer: unknown;
}

const gateway = (operation: GatewayOperationName, answer: unknown): WarmAnswer => ({ operation, spec: GATEWAY_OPERATIONS[operation], answer });
const account = (operation: AccountOperationName, answer: unknown): WarmAnswer => ({ operation, spec: ACCOUNT_OPERATIONS[operation], answer });

/**
 * One answer of each read a configured provider makes (the listings a plan reads, a contact, a
 * Region's status), as the services write them: `warmUpAnswers` parses each with the clients'
 * schema of its operation (src/contract), so that zod's parsers of the answers come made from the
 * snapshot too. The clients themselves cannot be in it (undici loads node:http2).
 */
export const WARM_ANSWERS: ReadonlyArray<WarmAnswer> = [
  gateway("GetApis", {
    items: [{ apiId: "a1b2c3d4e5", name: "orders", protocolType: "HTTP", routeSelectionExpression: "${request.method} ${request.path}", apiEndpoint: "https://a1b2c3d4e5.example.com", createdDate: "2026-01-01T00:00:00Z" }],
    nextToken: "1",
  }),
  gateway("GetRoutes", { items: [{ routeId: "r1b2c3d", routeKey: "GET /orders/{id}", apiKeyRequired: false, authorizationType: "NONE", target: "integrations/i1b2c3d", apiGatewayManaged: false }] }),
  gateway("GetIntegrations", {
    items: [{ integrationId: "i1b2c3d", integrationType: "HTTP_PROXY", integrationUri: "https://svc.internal.example/api", integrationMethod: "ANY", connectionType: "INTERNET", payloadFormatVersion: "1.0", timeoutInMillis: 30000 }],
  }),
  account("GetAlternateContact", { AlternateContact: { AlternateContactType: "SECURITY", EmailAddress: "security@example.com", Name: "Security team", PhoneNumber: "+1-555-0100", Title: "CISO" } }),
  account("ListRegions", { Regions: [{ RegionName: "ap-east-1", RegionOptStatus: "ENABLED" }], NextToken: "1" }),
  account("GetRegionOptStatus", { RegionName: "ap-east-1", RegionOptStatus: "DISABLED" }),
];

/** Parses each answer with its operation's schema; fails naming one that does not parse (it would not take the path a valid answer takes). */
export function warmUpAnswers(answers: ReadonlyArray<WarmAnswer> = WARM_ANSWERS): void {
  for (const { operation, spec, answer } of answers) {
    if (spec.response?.safeParse(answer).success !== true) throw new Error(`warm-up answer of ${operation} does not parse as the clients parse its answers: expected a valid answer`);
  }
}
