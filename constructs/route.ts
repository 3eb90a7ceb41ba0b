import type { Construct } from "constructs";
import { RouteDocument, RouteSpec, type ApiRef } from "../src/desired/schema.js";
import { renderValue } from "../src/contract/field-issues.js";
import { apiRefKey, describeApiRef } from "../src/desired/api-ref.js";
import { fieldAttribute, HEAD_ATTRIBUTES, naturalImportId, resourceTypeOf } from "../src/desired/terraform-attributes.js";
import { ConvergeResource } from "./converge-resource.js";
import { attributeReference, specAttributes, type ProviderContext, type ProviderDeclaration } from "./provider-vehicle.js";
import { templateLiteral } from "./vehicle.js";
import { targetInOtherApi, targetNotInStack, targetNotIntegration } from "./errors.js";
import { Integration } from "./integration.js";
import { stackOf } from "./vehicle.js";

export interface RouteProps {
  /** The API: an apiId, or `{ name }` looked up among the caller's APIs. @default - required */
  readonly api: ApiRef;
  /** The route key: "$default" or "METHOD /path" on HTTP APIs, free-form on WebSocket APIs; its identity. @default - required */
  readonly routeKey: RouteSpec["routeKey"];
  /** Pins the live route by ID (then routeKey may rename it); with the provider vehicle, an import of `<apiId>/<routeId>`. @default matched by routeKey */
  readonly routeId?: string;
  /** Logical name, for --target and messages; not an attribute with the provider vehicle. @default the route key */
  readonly name?: string;
  /** What the route invokes: an Integration construct of the same API and stack (the route is ordered after it; with the provider vehicle, a reference to its integration_id), or "integrations/<id>"; null detaches. @default don't care */
  readonly target?: Integration | string | null;
  /** NONE, JWT, CLOUD_IAM or CUSTOM. @default don't care (the service's default is NONE) */
  readonly authorizationType?: RouteSpec["authorizationType"];
  /** The authorizer's ID (sent with authorizationType). @default don't care */
  readonly authorizerId?: RouteSpec["authorizerId"];
  /** OAuth scopes a JWT authorizer requires (compared as a set). @default don't care */
  readonly authorizationScopes?: RouteSpec["authorizationScopes"];
  /** Whether an API key is required, WebSocket APIs only. @default don't care */
  readonly apiKeyRequired?: RouteSpec["apiKeyRequired"];
  /** Request parameters, WebSocket APIs only. @default don't care */
  readonly requestParameters?: RouteSpec["requestParameters"];
  /** Request models by content type, WebSocket APIs only. @default don't care */
  readonly requestModels?: RouteSpec["requestModels"];
  /** Model selection expression, WebSocket APIs only. @default don't care */
  readonly modelSelectionExpression?: RouteSpec["modelSelectionExpression"];
  /** Route response selection expression, WebSocket APIs only. @default don't care */
  readonly routeResponseSelectionExpression?: RouteSpec["routeResponseSelectionExpression"];
  /** The operation's name. @default don't care */
  readonly operationName?: RouteSpec["operationName"];
}

// Every field of the document's spec is a prop, and every prop but name and api is a field of the spec.
type SpecProps = Omit<RouteProps, "name" | "api">;
const _sameFields: [keyof SpecProps] extends [keyof RouteSpec] ? ([keyof RouteSpec] extends [keyof SpecProps] ? true : never) : never = true;
void _sameFields;

/**
 * A route of an API (desired-state kind Route). Identity: (API, routeKey), or a pinned routeId.
 * `target: someIntegration` writes `target: {integration: <its name>}` into the document: the stack's
 * converge run creates the integration before the route, and deletes the route (or moves it to its
 * new target) before an integration it no longer targets. With the provider vehicle, a
 * `converge_route` whose target refers to the integration's resource, so terraform orders them.
 */
export class Route extends ConvergeResource {
  constructor(scope: Construct, id: string, props: RouteProps) {
    const { api, name, target, ...rest } = props;
    const problems: string[] = [];
    let spec: Record<string, unknown> = { ...rest };
    if (target instanceof Integration) {
      spec = { ...rest, target: { integration: target.name } };
      if (stackOf(target) !== stackOf(scope)) problems.push(targetNotInStack(target.node.path, stackOf(scope).node.path));
      else if (apiRefKey(target.api) !== apiRefKey(api)) problems.push(targetInOtherApi(target.node.path, describeApiRef(target.api), describeApiRef(api)));
    } else if (target !== undefined) {
      if (target !== null && typeof target !== "string") problems.push(targetNotIntegration(renderValue(target)));
      else spec = { ...rest, target };
    }
    super(scope, id, {
      kind: "Route",
      document: { kind: "Route", ...(name !== undefined ? { name } : {}), api, spec },
      schema: RouteDocument,
      problems,
      provider: (context) => routeOnProvider(props, context),
    });
  }
}

/** A route as a `converge_route`: the API's ID, the spec's fields, the target (a reference to a target construct's resource), and its pin as an import. */
function routeOnProvider(props: RouteProps, context: ProviderContext): ProviderDeclaration {
  const { api, target, routeId, name: _name, ...spec } = props;
  const { attributes, ignoreChanges } = specAttributes(spec, RouteSpec.shape, { except: ["routeId", "target"] });
  const targetAttribute = fieldAttribute("target");
  if (target === undefined) ignoreChanges.push(targetAttribute);
  else if (target instanceof Integration) {
    if (target.terraformAddress !== undefined) attributes[targetAttribute] = `integrations/${attributeReference(target.terraformAddress, fieldAttribute("integrationId"))}`;
  } else if (target !== null) attributes[targetAttribute] = templateLiteral(target);
  const apiId = context.apiId(api);
  return {
    block: "resource",
    type: resourceTypeOf("Route"),
    attributes: { [HEAD_ATTRIBUTES.api]: apiId, ...attributes },
    ignoreChanges,
    importId: routeId !== undefined ? `${apiId}/${routeId}` : undefined,
    naturalImportId: naturalImportId(apiId, spec, ["routeKey"]),
  };
}
