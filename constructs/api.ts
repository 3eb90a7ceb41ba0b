import type { Construct } from "constructs";
import { describeApiRef } from "../src/desired/api-ref.js";
import { ApiDocument, type ApiRef } from "../src/desired/schema.js";
import { dataSourceTypeOf, HEAD_ATTRIBUTES } from "../src/desired/terraform-attributes.js";
import type { ProtocolType } from "../src/contract/gateway.js";
import { ConvergeResource } from "./converge-resource.js";
import { protocolMismatchCondition, pruneWithProvider } from "./errors.js";
import { attributeReference } from "./provider-vehicle.js";
import { templateLiteral } from "./vehicle.js";

export interface ApiProps {
  /** The API: an apiId, or `{ name }` looked up among the caller's APIs. @default - required */
  readonly api: ApiRef;
  /** The API's protocol: "HTTP" or "WEBSOCKET". Declared, the per-protocol rules of its routes and integrations are checked at synth (and, with the provider vehicle, the live API's protocol at plan). @default not checked until deploy */
  readonly protocolType?: ProtocolType;
  /** Delete the API's live routes and integrations that no construct of the stack declares (the protections still apply); refused with the provider vehicle. @default false */
  readonly prune?: boolean;
}

/**
 * What the stack says of an API itself (desired-state kind Api): its protocol, so that a
 * WebSocket-only field on an HTTP API's route is refused at synth, and whether the stack owns the
 * API's routes and integrations (prune). converge never creates or deletes APIs: destroying the
 * construct leaves the API as it is. With the provider vehicle, a `converge_api` data source that
 * reads the API, with a postcondition on its protocol when one is declared; prune is refused there
 * (terraform deletes only what its configuration made).
 */
export class Api extends ConvergeResource {
  constructor(scope: Construct, id: string, props: ApiProps) {
    const { api, protocolType, prune } = props;
    super(scope, id, {
      kind: "Api",
      document: { kind: "Api", api, spec: { ...(prune !== undefined ? { prune } : {}), ...(protocolType !== undefined ? { protocolType } : {}) } },
      schema: ApiDocument,
      provider: (context) => {
        if (prune === true) return { refused: [pruneWithProvider(prune)] };
        return {
          block: "data",
          type: dataSourceTypeOf("api"),
          attributes: typeof api === "object" && api !== null ? { name: templateLiteral(api.name) } : { [HEAD_ATTRIBUTES.api]: templateLiteral(api) },
          postconditions: protocolType === undefined ? [] : [{
            condition: `\${self.protocol_type == ${JSON.stringify(templateLiteral(protocolType))}}`,
            // user text made literal; the live protocol is terraform's to fill in
            errorMessage: protocolMismatchCondition(templateLiteral(context.path) as string, protocolType, templateLiteral(describeApiRef(api)) as string, attributeReference("self", "protocol_type")),
          }],
        };
      },
    });
  }
}
