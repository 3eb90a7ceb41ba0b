import { resourceTypeOf } from "../../desired/terraform-attributes.js";
import { terraformResourceOf } from "../../desired/terraform-resources.js";
import { specFields } from "../terraform-fields.js";
import { gatewayChildDocument } from "./gateway-child.js";

/**
 * converge's Route kind as a document of terraform values, what validation needs of it: a route's
 * spec fields as attributes, the service's route fields, scopes as a set, the two it fills in computed too.
 */
export const routeDocument = gatewayChildDocument(terraformResourceOf("Route"), specFields(terraformResourceOf("Route"), {
  routeKey: 'The route key: `$default` or `"METHOD /path"` on an HTTP API, any expression value on a WebSocket API. Updated in place (never for a route the service manages).',
  target: `Where the route sends requests: \`"integrations/\${${resourceTypeOf("Integration")}.NAME.integration_id}"\`.`,
  authorizationType: "NONE, JWT, CLOUD_IAM or CUSTOM (HTTP APIs); NONE, CLOUD_IAM or CUSTOM (WebSocket APIs). The service's NONE when left out.",
  authorizationScopes: "Scopes a JWT must claim one of (compared as a set).",
  apiKeyRequired: "WebSocket APIs only. The service's false when left out.",
}));
