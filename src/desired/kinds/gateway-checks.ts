import type { DesiredStateProblem } from "../desired-state-error.js";
import type { LoadedDocument } from "../loaded-document.js";
import type { ApiRef, Document } from "../schema.js";
import type { ProtocolType } from "../../contract/gateway.js";
import type { FieldIssue } from "../../contract/field-issues.js";
import { groupBy, problemAt, type DocumentIndex } from "./kind-model.js";

/** A document of a child of an API (a route, an integration): it names its API. */
export type GatewayDocument = Extract<Document, { readonly api: ApiRef; readonly name?: string | undefined }>;

/** What a gateway child kind checks by the same steps as the others: its protocol's rules, its pin. */
export interface GatewayRules {
  /** The violations of a protocol's rules by a spec (field names prefixed with `prefix`); `creating`: the plan would create it. */
  protocolIssues(protocol: ProtocolType, spec: Readonly<Record<string, unknown>>, prefix: string, creating: boolean): FieldIssue[];
  /** The spec field that pins a live ID, and the resource's name for people. */
  readonly pinField: string;
  readonly noun: string;
}

/**
 * Per-protocol rule violations of a route or integration document, located in its file. A
 * document may leave payloadFormatVersion out when it matches an existing integration; `creating`
 * says the plan would create it, when the field is required on an HTTP API.
 */
export function protocolProblems(
  loaded: LoadedDocument<GatewayDocument>,
  rules: GatewayRules,
  protocol: ProtocolType,
  creating = false,
): DesiredStateProblem[] {
  const issues = rules.protocolIssues(protocol, loaded.document.spec as Record<string, unknown>, "spec.", creating);
  return issues.map((issue) => {
    const field = issue.name.replace(/^spec\./, "").split(/[.[]/)[0]!;
    return problemAt(loaded, ["spec", field], issue.message);
  });
}

/**
 * The offline checks routes and integrations share: the rules of a protocol an `Api` document
 * declares, and one document per pinned ID (`spec.routeId` / `spec.integrationId`).
 */
export function commonGatewayProblems(loaded: LoadedDocument<GatewayDocument>, rules: GatewayRules, index: DocumentIndex): DesiredStateProblem[] {
  const { kind, api } = loaded.document;
  const key = index.apiKey(api);
  const problems: DesiredStateProblem[] = [];
  const protocol = index.declaredProtocol(key);
  if (protocol) problems.push(...protocolProblems(loaded, rules, protocol));
  const pinField = rules.pinField;
  const pinOf = (document: LoadedDocument["document"]) => (document.kind === kind
    ? (document.spec as Record<string, unknown>)[pinField] as string | undefined
    : undefined);
  const pin = pinOf(loaded.document);
  if (pin !== undefined) {
    const pins = index.memo(`${kind}-pins`, () => groupBy(index.documents, (other) => {
      const otherPin = pinOf(other.document);
      return otherPin === undefined ? undefined : `${index.apiKey((other.document as GatewayDocument).api)}/${otherPin}`;
    }));
    const first = pins.get(`${key}/${pin}`)?.[0];
    if (first && first !== loaded) {
      problems.push(problemAt(loaded, ["spec", pinField], `${pinField} ${pin} is already pinned by the ${rules.noun} `
        + `at ${first.source.file}:${first.source.line}: one live resource, one document`));
    }
  }
  return problems;
}
