import type { LoadedDocument } from "../../desired/load.js";
import type { IntegrationDocument, RouteDocument } from "../../desired/schema.js";
import type { DesiredStateProblem } from "../../desired/desired-state-error.js";
import { integrationProtocolIssues, routeProtocolIssues, type ProtocolType } from "../../spec/gateway.js";
import type { FieldIssue } from "../../spec/field-issues.js";
import { problemAt } from "./kind-handler.js";

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
