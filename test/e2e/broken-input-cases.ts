import { expect } from "vitest";

/**
 * Broken desired state, one file each, with where and what the CLI must report: the cases of
 * cli-broken-input.test.ts, also run through the release's executable and Node.js side by side
 * (test/cli/release/cli-equivalence.test.ts).
 */

export interface BrokenCase {
  readonly name: string;
  readonly file: string;
  readonly lines: ReadonlyArray<string>;
  /** The line the problem is reported on. */
  readonly line: number;
  /** The field path printed after `file:line:column:`; null for problems of the file or document as a whole. */
  readonly path: string | null;
  /** A part of the message. */
  readonly message: string;
}

export const CONTACT = ["kind: AlternateContact", "spec:", "  type: SECURITY", "  name: Security Team", "  title: CISO", "  emailAddress: security@example.com", '  phoneNumber: "+1 555 0100"'];
export const HTTP_API = ["kind: Api", "api: a1b2c3d4e5", "spec: {protocolType: HTTP}", "---"];
export const WEBSOCKET_API = ["kind: Api", "api: w5s0ck3t01", "spec: {protocolType: WEBSOCKET}", "---"];
export const REGION = ["kind: RegionOptIn", "spec: {region: ap-east-1, enabled: true}"];
export const ORDERS_INTEGRATION = ["kind: Integration", "name: orders", "api: a1b2c3d4e5", "spec:", "  integrationType: HTTP_PROXY", "  integrationUri: https://orders.example/api", "  integrationMethod: ANY", '  payloadFormatVersion: "1.0"'];

/** `lines` with line `index` (1-based) replaced by `replacement`. */
export function replaceLine(lines: ReadonlyArray<string>, index: number, replacement: string): string[] {
  expect(lines[index - 1], `line ${index}`).toBeDefined();
  return lines.map((line, at) => (at === index - 1 ? replacement : line));
}

export const BROKEN_CASES: ReadonlyArray<BrokenCase> = [
  // --- files that do not parse ---
  { name: "bad YAML syntax (a mapping inside a compact value)", file: "yaml-syntax.yaml", lines: replaceLine(CONTACT, 3, "  type: SECURITY: primary"), line: 3, path: null, message: "not valid YAML: Nested mappings are not allowed in compact mappings" },
  { name: "a tab used for indentation", file: "tab.yaml", lines: replaceLine(CONTACT, 5, "\ttitle: CISO"), line: 5, path: null, message: "not valid YAML: Tabs are not allowed as indentation" },
  { name: "a duplicate YAML key", file: "duplicate-key.yaml", lines: [...CONTACT.slice(0, 4), "  name: Security Operations", ...CONTACT.slice(4)], line: 5, path: null, message: "not valid YAML: Map keys must be unique" },
  {
    name: "a JSON file with a syntax error (a missing comma)", file: "syntax.json",
    lines: ["{", '  "kind": "RegionOptIn",', '  "spec": {', '    "region": "ap-east-1"', '    "enabled": true', "  }", "}"],
    line: 5, path: null, message: "not valid JSON",
  },
  // --- documents of the wrong shape ---
  { name: "a document that is a scalar", file: "scalar.yaml", lines: [...REGION, "---", "just a sentence"], line: 4, path: null, message: 'a document must be a mapping with kind and spec, received "just a sentence"' },
  { name: "a document that is a list", file: "list.yaml", lines: ["- kind: RegionOptIn", "  spec: {region: ap-east-1, enabled: true}", "- [RegionOptIn, me-south-1]"], line: 3, path: null, message: 'a document must be a mapping with kind and spec, received ["RegionOptIn","me-south-1"]' },
  { name: "a missing kind", file: "no-kind.yaml", lines: [...REGION, "---", 'account: "222222222222"', "spec: {region: ap-east-1, enabled: true}"], line: 4, path: "kind", message: "expected one of AlternateContact, Integration, Route, RegionOptIn, Api" },
  { name: "an unknown kind", file: "unknown-kind.yaml", lines: [...REGION, "---", "kind: Lambda", "spec: {functionName: orders}"], line: 4, path: "kind", message: 'kind "Lambda" is not valid' },
  { name: "a missing spec", file: "no-spec.yaml", lines: [...REGION, "---", "kind: Integration", "name: orders", "api: a1b2c3d4e5"], line: 4, path: "spec", message: "spec is required" },
  { name: "an unknown top-level field", file: "top-level-field.yaml", lines: [...REGION, 'acount: "222222222222"'], line: 3, path: "acount", message: 'unknown field "acount"' },
  { name: "an unknown field in spec (a typo)", file: "spec-field.yaml", lines: [...ORDERS_INTEGRATION, "  integrationUrl: https://orders.example/v2"], line: 9, path: "spec.integrationUrl", message: 'unknown field "integrationUrl"' },
  // --- field values ---
  { name: "a wrong type (timeoutInMillis: fast)", file: "wrong-type.yaml", lines: [...ORDERS_INTEGRATION, "  timeoutInMillis: fast"], line: 9, path: "spec.timeoutInMillis", message: 'spec.timeoutInMillis "fast" is not valid' },
  { name: "an integrationType outside the enum", file: "integration-type.yaml", lines: replaceLine(ORDERS_INTEGRATION, 5, "  integrationType: LAMBDA"), line: 5, path: "spec.integrationType", message: 'spec.integrationType "LAMBDA" is not valid: expected one of "CLOUD", "HTTP", "MOCK", "HTTP_PROXY", "CLOUD_PROXY"' },
  { name: "an out-of-range timeoutInMillis on a declared HTTP API", file: "timeout-range.yaml", lines: [...HTTP_API, ...ORDERS_INTEGRATION, "  timeoutInMillis: 40"], line: 13, path: "spec.timeoutInMillis", message: "timeoutInMillis 40 is out of range for an HTTP API: expected 50 to 30000" },
  { name: "a lower-case contact type", file: "contact-type.yaml", lines: replaceLine(CONTACT, 3, "  type: security"), line: 3, path: "spec.type", message: 'expected one of "BILLING", "OPERATIONS", "SECURITY" (upper case)' },
  { name: "an email address not matching the pattern", file: "email.yaml", lines: replaceLine(CONTACT, 6, "  emailAddress: security at example.com"), line: 6, path: "spec.emailAddress", message: "expected an email address" },
  { name: "a contact name of 65 characters", file: "long-name.yaml", lines: replaceLine(CONTACT, 4, `  name: ${"n".repeat(65)}`), line: 4, path: "spec.name", message: "expected 1 to 64 characters" },
  { name: "a phone number with letters", file: "phone.yaml", lines: replaceLine(CONTACT, 7, '  phoneNumber: "+1 555 CALL-NOW"'), line: 7, path: "spec.phoneNumber", message: "expected digits, spaces, parentheses, + and - only" },
  { name: "an account ID of 11 digits", file: "account-id.yaml", lines: ["kind: RegionOptIn", 'account: "22222222222"', "spec: {region: ap-east-1, enabled: true}"], line: 2, path: "account", message: "expected exactly 12 digits" },
  { name: "an api reference that is not 10 characters", file: "api-ref.yaml", lines: replaceLine(ORDERS_INTEGRATION, 3, "api: a1b2c3d4e"), line: 3, path: "api", message: "expected an apiId (10 lower-case letters or digits) or {name: <api name>}" },
  { name: "a route target that is neither a name nor integrations/<id>", file: "target-shape.yaml", lines: ["kind: Route", "api: a1b2c3d4e5", "spec:", "  routeKey: GET /orders", "  target: orders-backend"], line: 5, path: "spec.target", message: 'expected {integration: <name>} or "integrations/<integrationId>"' },
  { name: "a responseParameters key that is not a status code", file: "response-parameters.yaml", lines: [...ORDERS_INTEGRATION, "  responseParameters:", '    "700": {"overwrite:statuscode": "204"}'], line: 10, path: 'spec.responseParameters["700"]', message: "expected an HTTP status code from 200 to 599 as key" },
  { name: "an invalid ensure value", file: "ensure.yaml", lines: ["kind: Route", "api: a1b2c3d4e5", "ensure: gone", "spec: {routeKey: GET /orders}"], line: 3, path: "ensure", message: 'expected "present" or "absent"' },
  { name: "ensure: absent on a RegionOptIn", file: "region-absent.yaml", lines: ["kind: RegionOptIn", "ensure: absent", "spec: {region: ap-east-1, enabled: false}"], line: 2, path: "ensure", message: "RegionOptIn does not take ensure: absent" },
  { name: "a RegionOptIn with enabled: \"yes\"", file: "region-enabled.yaml", lines: ["kind: RegionOptIn", "spec:", "  region: ap-east-1", '  enabled: "yes"'], line: 4, path: "spec.enabled", message: 'spec.enabled "yes" is not valid: expected boolean' },
  { name: "an Api document with an unknown protocolType", file: "api-protocol.yaml", lines: ["kind: Api", "api: a1b2c3d4e5", "spec:", "  prune: true", "  protocolType: GRPC"], line: 5, path: "spec.protocolType", message: 'expected one of "HTTP", "WEBSOCKET"' },
  // --- per-protocol rules, checked offline because a kind: Api document declares the protocol ---
  { name: "a WebSocket-only integration field (requestTemplates) on a declared HTTP API", file: "http-request-templates.yaml", lines: [...HTTP_API, ...ORDERS_INTEGRATION, "  requestTemplates:", "    application/json: '{}'"], line: 13, path: "spec.requestTemplates", message: "spec.requestTemplates is for WebSocket APIs only; this integration belongs to an HTTP API" },
  { name: "a WebSocket-only route field (apiKeyRequired) on a declared HTTP API", file: "http-api-key.yaml", lines: [...HTTP_API, "kind: Route", "api: a1b2c3d4e5", "spec:", "  routeKey: GET /orders", "  apiKeyRequired: true"], line: 9, path: "spec.apiKeyRequired", message: "spec.apiKeyRequired is for WebSocket APIs only" },
  { name: "an HTTP-only field (tlsConfig) on a declared WebSocket API", file: "websocket-tls.yaml", lines: [...WEBSOCKET_API, "kind: Integration", "name: chat", "api: w5s0ck3t01", "spec:", "  integrationType: MOCK", "  tlsConfig:", "    serverNameToVerify: chat.example"], line: 10, path: "spec.tlsConfig", message: "spec.tlsConfig is for HTTP APIs only; this integration belongs to a WebSocket API" },
  { name: "a JWT authorizationType on a declared WebSocket API", file: "websocket-jwt.yaml", lines: [...WEBSOCKET_API, "kind: Route", "api: w5s0ck3t01", "spec:", "  routeKey: $connect", "  authorizationType: JWT"], line: 9, path: "spec.authorizationType", message: 'spec.authorizationType "JWT" is not valid for a WebSocket API: expected one of NONE, CLOUD_IAM, CUSTOM' },
  { name: "an invalid HTTP route key on a declared HTTP API", file: "http-route-key.yaml", lines: [...HTTP_API, "kind: Route", "api: a1b2c3d4e5", "spec:", "  routeKey: get /orders"], line: 8, path: "spec.routeKey", message: 'spec.routeKey "get /orders" is not valid for an HTTP API: expected "$default" or "METHOD /path"' },
  { name: "a requestParameters key without an action on a declared HTTP API", file: "http-request-parameters.yaml", lines: [...HTTP_API, ...ORDERS_INTEGRATION, "  requestParameters:", '    header.x: "$request.header.x"'], line: 13, path: "spec.requestParameters", message: 'requestParameters key "header.x" is not valid for an HTTP API integration without integrationSubtype' },
  // --- documents against each other ---
  { name: "a duplicate identity (two SECURITY contacts of one account)", file: "duplicate-contact.yaml", lines: [...replaceLine(CONTACT, 1, "kind: AlternateContact\naccount: \"222222222222\""), "---", ...replaceLine(CONTACT, 1, "kind: AlternateContact\naccount: \"222222222222\"")], line: 10, path: null, message: "AlternateContact/222222222222/SECURITY is declared twice: first at duplicate-contact.yaml:1" },
  {
    name: "a duplicate integration logical name in one API", file: "duplicate-name.yaml",
    lines: [...ORDERS_INTEGRATION, "---", ...replaceLine(ORDERS_INTEGRATION, 6, "  integrationUri: https://orders.example/other")],
    line: 10, path: null, message: "Integration/a1b2c3d4e5/orders is declared twice: first at duplicate-name.yaml:1",
  },
  { name: "a route target naming an unknown integration", file: "dangling-target.yaml", lines: [...ORDERS_INTEGRATION, "---", "kind: Route", "api: a1b2c3d4e5", "spec:", "  routeKey: GET /orders", "  target: {integration: order}"], line: 14, path: "spec.target.integration", message: 'target names integration "order", but no Integration document of the same api declares that name' },
  {
    name: "a route target naming an integration declared ensure: absent", file: "absent-target.yaml",
    lines: [...replaceLine(ORDERS_INTEGRATION, 3, "api: a1b2c3d4e5\nensure: absent"), "---", "kind: Route", "api: a1b2c3d4e5", "spec:", "  routeKey: GET /orders", "  target: {integration: orders}"],
    line: 15, path: "spec.target.integration", message: 'target names integration "orders", which is declared ensure: absent at absent-target.yaml:1',
  },
  {
    name: "two integrations with the same natural key and no pin", file: "natural-key.yaml",
    lines: [...ORDERS_INTEGRATION, "---", ...replaceLine(ORDERS_INTEGRATION, 2, "name: orders-copy")],
    line: 13, path: "spec", message: 'integration "orders-copy" has the same natural key',
  },
];

/** Lines as a file's text. Some case lines hold two lines (joined with \n), so count after joining. */
export function textOf(lines: ReadonlyArray<string>): string {
  return `${lines.join("\n")}\n`;
}
