import type { DesiredStateProblem } from "../desired-state-error.js";
import type { LoadedDocument } from "../load.js";
import type { IntegrationDocument, RouteDocument } from "../schema.js";
import { integrationProtocolIssues, routeProtocolIssues, type ProtocolType } from "../../spec/gateway.js";
import type { FieldIssue } from "../../spec/field-issues.js";
import { groupBy, problemAt, type DocumentIndex } from "./kind-model.js";

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

/**
 * The offline checks routes and integrations share: the rules of a protocol an `Api` document
 * declares, and one document per pinned ID (`spec.routeId` / `spec.integrationId`).
 */
export function commonGatewayProblems(loaded: LoadedDocument<RouteDocument> | LoadedDocument<IntegrationDocument>, index: DocumentIndex): DesiredStateProblem[] {
  const { kind, api } = loaded.document;
  const key = index.apiKey(api);
  const problems: DesiredStateProblem[] = [];
  const protocol = index.declaredProtocol(key);
  if (protocol) problems.push(...protocolProblems(loaded, protocol));
  const pinField = kind === "Route" ? "routeId" : "integrationId";
  const pinOf = (document: LoadedDocument["document"]) => (document.kind === kind ? (document.spec as Record<string, unknown>)[pinField] as string | undefined : undefined);
  const pin = pinOf(loaded.document);
  if (pin !== undefined) {
    const pins = index.memo(`${kind}-pins`, () => groupBy(index.documents, (other) => {
      const otherPin = pinOf(other.document);
      return otherPin === undefined ? undefined : `${index.apiKey((other.document as RouteDocument | IntegrationDocument).api)}/${otherPin}`;
    }));
    const first = pins.get(`${key}/${pin}`)?.[0];
    if (first && first !== loaded) {
      problems.push(problemAt(loaded, ["spec", pinField], `${pinField} ${pin} is already pinned by the ${kind === "Route" ? "route" : "integration"} at ${first.source.file}:${first.source.line}: one live resource, one document`));
    }
  }
  return problems;
}
