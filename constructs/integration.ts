import type { Construct } from "constructs";
import { IntegrationDocument, IntegrationSpec, type ApiRef } from "../src/desired/schema.js";
import { HEAD_ATTRIBUTES, naturalImportId, resourceTypeOf } from "../src/desired/terraform-attributes.js";
import { NATURAL_KEY_FIELDS } from "../src/desired/kinds/integration.js";
import { ConvergeResource } from "./converge-resource.js";
import { specAttributes } from "./provider-vehicle.js";

export interface IntegrationProps {
  /** Logical name, unique within its API: what routes target (letters, digits, '.', '_', '-'); not an attribute with the provider vehicle, where a route targets the construct itself. @default the construct's id */
  readonly name?: string;
  /** The API: an apiId, or `{ name }` looked up among the caller's APIs. @default - required */
  readonly api: ApiRef;
  /** Pins the live integration by ID instead of matching it by its natural key; with the provider vehicle, an import of `<apiId>/<integrationId>`. @default matched by the natural key */
  readonly integrationId?: string;
  /** CLOUD, CLOUD_PROXY, HTTP, HTTP_PROXY or MOCK (part of the natural key). @default - required */
  readonly integrationType: IntegrationSpec["integrationType"];
  /** The backend's URI (part of the natural key). @default don't care */
  readonly integrationUri?: IntegrationSpec["integrationUri"];
  /** The HTTP method used towards the backend (part of the natural key). @default don't care */
  readonly integrationMethod?: IntegrationSpec["integrationMethod"];
  /** Subtype of a CLOUD_PROXY integration, HTTP APIs only (part of the natural key). @default don't care */
  readonly integrationSubtype?: IntegrationSpec["integrationSubtype"];
  /** INTERNET or VPC_LINK (part of the natural key). @default don't care (the service defaults to INTERNET) */
  readonly connectionType?: IntegrationSpec["connectionType"];
  /** The VPC link of a VPC_LINK integration, HTTP APIs only (part of the natural key). @default don't care */
  readonly connectionId?: IntegrationSpec["connectionId"];
  /** Credentials the gateway assumes towards the backend. @default don't care */
  readonly credentialsArn?: IntegrationSpec["credentialsArn"];
  /** Free-text description. @default don't care */
  readonly description?: IntegrationSpec["description"];
  /** Payload format version; required when creating an integration of an HTTP API ("1.0" or "2.0"). @default don't care */
  readonly payloadFormatVersion?: IntegrationSpec["payloadFormatVersion"];
  /** Timeout in milliseconds (50..30000 on HTTP APIs, 50..29000 on WebSocket APIs). @default don't care (the service's default) */
  readonly timeoutInMillis?: IntegrationSpec["timeoutInMillis"];
  /** TLS settings towards the backend, HTTP APIs only. @default don't care */
  readonly tlsConfig?: IntegrationSpec["tlsConfig"];
  /** Request parameter mappings. @default don't care */
  readonly requestParameters?: IntegrationSpec["requestParameters"];
  /** Response parameter mappings by status code (200..599), HTTP APIs only. @default don't care */
  readonly responseParameters?: IntegrationSpec["responseParameters"];
  /** Request templates by content type, WebSocket APIs only. @default don't care */
  readonly requestTemplates?: IntegrationSpec["requestTemplates"];
  /** Template selection expression, WebSocket APIs only. @default don't care */
  readonly templateSelectionExpression?: IntegrationSpec["templateSelectionExpression"];
  /** WHEN_NO_MATCH, NEVER or WHEN_NO_TEMPLATES, WebSocket APIs only. @default don't care */
  readonly passthroughBehavior?: IntegrationSpec["passthroughBehavior"];
  /** CONVERT_TO_BINARY or CONVERT_TO_TEXT, WebSocket APIs only. @default don't care */
  readonly contentHandlingStrategy?: IntegrationSpec["contentHandlingStrategy"];
}

// Every field of the document's spec is a prop, and every prop but name and api is a field of the spec.
type SpecProps = Omit<IntegrationProps, "name" | "api">;
const _sameFields: [keyof SpecProps] extends [keyof IntegrationSpec] ? ([keyof IntegrationSpec] extends [keyof SpecProps] ? true : never) : never = true;
void _sameFields;

/**
 * An integration of an API (desired-state kind Integration). Identity: a pinned integrationId, else
 * its natural key (integrationType, integrationUri, integrationMethod, connectionType, connectionId,
 * integrationSubtype) together with its logical name. Destroying the construct deletes the
 * integration (the service refuses while a route targets it: routes that target it by construct are
 * destroyed first). A field set to `null` must be absent on the live integration. With the provider
 * vehicle, a `converge_integration`.
 */
export class Integration extends ConvergeResource {
  /** The logical name routes target. */
  readonly name: string;
  /** The API the integration belongs to. */
  readonly api: ApiRef;

  constructor(scope: Construct, id: string, props: IntegrationProps) {
    const { name = id, api, ...spec } = props;
    super(scope, id, {
      kind: "Integration",
      document: { kind: "Integration", name, api, spec },
      schema: IntegrationDocument,
      provider: (context) => {
        const { attributes, ignoreChanges } = specAttributes(spec, IntegrationSpec.shape, { except: ["integrationId"] });
        const apiId = context.apiId(api);
        return {
          block: "resource",
          type: resourceTypeOf("Integration"),
          attributes: { [HEAD_ATTRIBUTES.api]: apiId, ...attributes },
          ignoreChanges,
          importId: spec.integrationId !== undefined ? `${apiId}/${spec.integrationId}` : undefined,
          naturalImportId: naturalImportId(apiId, spec, NATURAL_KEY_FIELDS),
        };
      },
    });
    this.name = name;
    this.api = api;
  }
}
