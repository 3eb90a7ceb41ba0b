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
