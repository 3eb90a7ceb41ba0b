import type { Construct } from "constructs";
import { ApiDocument, type ApiRef } from "../src/desired/schema.js";
import type { ProtocolType } from "../src/spec/gateway.js";
import { ConvergeResource } from "./converge-resource.js";

export interface ApiProps {
  /** The API: an apiId, or `{ name }` looked up among the caller's APIs. @default - required */
  readonly api: ApiRef;
  /** The API's protocol: "HTTP" or "WEBSOCKET". Declared, the per-protocol rules of its routes and integrations are checked at synth. @default not checked until deploy */
  readonly protocolType?: ProtocolType;
  /** Delete the API's live routes and integrations that no construct of the stack declares (the protections still apply). @default false */
  readonly prune?: boolean;
}

/**
 * What the stack says of an API itself (desired-state kind Api): its protocol, so that a
 * WebSocket-only field on an HTTP API's route is refused at synth, and whether the stack owns the
 * API's routes and integrations (prune). converge never creates or deletes APIs: destroying the
 * construct leaves the API as it is.
 */
export class Api extends ConvergeResource {
  constructor(scope: Construct, id: string, props: ApiProps) {
    const { api, protocolType, prune } = props;
    super(scope, id, {
      kind: "Api",
      document: { kind: "Api", api, spec: { ...(prune !== undefined ? { prune } : {}), ...(protocolType !== undefined ? { protocolType } : {}) } },
      schema: ApiDocument,
    });
  }
}
