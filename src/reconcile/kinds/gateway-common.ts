import type { LoadedDocument } from "../../desired/load.js";
import type { IntegrationDocument, RouteDocument } from "../../desired/schema.js";
import type { DesiredStateProblem } from "../../desired/desired-state-error.js";
import { integrationProtocolIssues, routeProtocolIssues, type ProtocolType } from "../../spec/gateway.js";
import type { FieldIssue } from "../../spec/field-issues.js";
import type { ProtocolType as Protocol } from "../../spec/gateway.js";
import type { LiveApi } from "../model.js";
import { apiRefKey, groupBy, problemAt, type DocumentIndex, type HandlerPlan, type PlanContext } from "./kind-handler.js";

/**
 * Per-protocol rule violations of a route or integration document, located in its file. A
 * document may leave payloadFormatVersion out when it matches an existing integration; `creating`
 * says the plan would create it, when the field is required on an HTTP API.
 */
export function protocolProblems(loaded: LoadedDocument<RouteDocument> | LoadedDocument<IntegrationDocument>, protocol: ProtocolType, creating = false): DesiredStateProblem[] {
  const spec = loaded.document.spec as Record<string, unknown>;
  const issues: FieldIssue[] = loaded.document.kind === "Route"
    ? routeProtocolIssues(protocol, spec as Parameters<typeof routeProtocolIssues>[1], "spec.")
    : integrationProtocolIssues(protocol, spec as Parameters<typeof integrationProtocolIssues>[1], "spec.", { requirePayloadFormatVersion: creating });
  return issues.map((issue) => {
    const field = issue.name.replace(/^spec\./, "").split(/[.[]/)[0]!;
    return problemAt(loaded, ["spec", field], issue.message);
  });
}

export function routeAddress(apiId: string, routeKey: string): string {
  return `Route/${apiId}/${routeKey}`;
}

export function integrationAddress(apiId: string, name: string): string {
  return `Integration/${apiId}/${name}`;
}

/**
 * The offline checks routes and integrations share: the rules of a protocol an `Api` document
 * declares, and one document per pinned ID (`spec.routeId` / `spec.integrationId`).
 */
export function commonGatewayProblems(loaded: LoadedDocument<RouteDocument> | LoadedDocument<IntegrationDocument>, index: DocumentIndex): DesiredStateProblem[] {
  const { kind, api } = loaded.document;
  const key = apiRefKey(api);
  const problems: DesiredStateProblem[] = [];
  const protocol = index.declaredProtocol(key);
  if (protocol) problems.push(...protocolProblems(loaded, protocol));
  const pinField = kind === "Route" ? "routeId" : "integrationId";
  const pinOf = (document: LoadedDocument["document"]) => (document.kind === kind ? (document.spec as Record<string, unknown>)[pinField] as string | undefined : undefined);
  const pin = pinOf(loaded.document);
  if (pin !== undefined) {
    const pins = index.memo(`${kind}-pins`, () => groupBy(index.documents, (other) => {
      const otherPin = pinOf(other.document);
      return otherPin === undefined ? undefined : `${apiRefKey((other.document as RouteDocument | IntegrationDocument).api)}/${otherPin}`;
    }));
    const first = pins.get(`${key}/${pin}`)?.[0];
    if (first && first !== loaded) {
      problems.push(problemAt(loaded, ["spec", pinField], `${pinField} ${pin} is already pinned by the ${kind === "Route" ? "route" : "integration"} at ${first.source.file}:${first.source.line}: one live resource, one document`));
    }
  }
  return problems;
}

/**
 * The start of planning a route or integration: its API resolved, the live protocol's rules
 * checked. Either the planning inputs, or the plan that reports why there are none.
 */
export function resolveGatewayDocument(
  loaded: LoadedDocument<RouteDocument> | LoadedDocument<IntegrationDocument>,
  context: PlanContext,
): { readonly apiId: string; readonly protocolType: Protocol | undefined; readonly liveApi: LiveApi } | { readonly failed: HandlerPlan } {
  const resolved = context.resolveApi(loaded.document.api);
  if ("problem" in resolved) return { failed: { actions: [], problems: [problemAt(loaded, ["api"], resolved.problem)] } };
  const { apiId, protocolType } = resolved;
  const problems = protocolType ? protocolProblems(loaded, protocolType) : [];
  if (problems.length > 0) return { failed: { actions: [], problems } };
  return { apiId, protocolType, liveApi: context.live.apis[apiId]! };
}
