import { terraformResourceOf } from "../../desired/terraform-resources.js";
import { specFields } from "../terraform-fields.js";
import { gatewayChildDocument } from "./gateway-child.js";

/** The logical name the resource's document has: one document per apply, so one name does. */
export const INTEGRATION_DOCUMENT_NAME = "terraform";

/**
 * converge's Integration kind as a document of terraform values, what validation needs of it: an
 * integration's spec fields as attributes, every integration field of the service, the two it
 * fills in computed too.
 */
export const integrationDocument = gatewayChildDocument(terraformResourceOf("Integration"), specFields(terraformResourceOf("Integration"), {
  integrationType: "CLOUD, HTTP, MOCK, HTTP_PROXY or CLOUD_PROXY. Updated in place.",
  integrationUri: "The backend: a URL for HTTP types, a function ARN for CLOUD types.",
  payloadFormatVersion: "Required on an HTTP API (`1.0` or `2.0`).",
  timeoutInMillis: "50 to 30000 on an HTTP API, 50 to 29000 on a WebSocket API; the service's default (30000, 29000) when left out.",
  connectionType: "INTERNET or VPC_LINK; the service's INTERNET when left out.",
}), INTEGRATION_DOCUMENT_NAME);
