import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { parseDesiredText } from "../../src/desired/load.js";
import { exportAccount, exportApi, exportLiveState, exportNeeds, integrationNames } from "../../src/reconcile/export.js";
import { SELF } from "../../src/desired/read-key.js";
import type { LiveApi, LiveState } from "../../src/reconcile/model.js";
import { renderExportStream, renderExportedFile } from "../../src/reconcile/render-export.js";
import { exportScopeOf } from "../../src/cli/commands/export-command.js";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { liveApi } from "../support/live-api.js";

/**
 * The pure half of `converge export`: live state → documents (what is left out, how integrations
 * are named and routes target them, how Region statuses map), and documents → YAML that loads back
 * as exactly those documents.
 */

const API_ID = "api0000001";

function api(protocolType: "HTTP" | "WEBSOCKET", integrations: Integration[], routes: Route[] = []): LiveApi & { protocolType: "HTTP" | "WEBSOCKET" } {
  return liveApi({ apiId: API_ID, name: "test", protocolType, integrations, routes });
}

function integration(integrationId: string, fields: Partial<Integration> = {}): Integration {
  return { integrationId, integrationType: "HTTP_PROXY", integrationUri: "https://backend.example/api", payloadFormatVersion: "1.0", connectionType: "INTERNET", timeoutInMillis: 30000, apiGatewayManaged: false, ...fields };
}

/** The values of a rendered file, read back with a plain YAML parser. */
function readBack(text: string): unknown[] {
  return parseAllDocuments(text).map((document) => {
    expect(document.errors.map((error) => error.message)).toEqual([]);
    return document.toJS();
  });
}

describe("exportApi: fields", () => {
  it.each([
    { case: "connectionType INTERNET (the default) is left out", protocol: "HTTP", fields: { connectionType: "INTERNET" }, field: "connectionType", written: undefined },
    { case: "connectionType VPC_LINK is kept", protocol: "HTTP", fields: { connectionType: "VPC_LINK", connectionId: "vpc1" }, field: "connectionType", written: "VPC_LINK" },
    { case: "an HTTP timeout of 30000 (the HTTP default) is left out", protocol: "HTTP", fields: { timeoutInMillis: 30000 }, field: "timeoutInMillis", written: undefined },
    { case: "an HTTP timeout of 29000 is kept", protocol: "HTTP", fields: { timeoutInMillis: 29000 }, field: "timeoutInMillis", written: 29000 },
    { case: "a WebSocket timeout of 29000 (the WebSocket default) is left out", protocol: "WEBSOCKET", fields: { timeoutInMillis: 29000, payloadFormatVersion: undefined }, field: "timeoutInMillis", written: undefined },
    { case: "a WebSocket timeout of 30000 would be kept", protocol: "WEBSOCKET", fields: { timeoutInMillis: 28000, payloadFormatVersion: undefined }, field: "timeoutInMillis", written: 28000 },
    { case: "an unset description stays unset", protocol: "HTTP", fields: {}, field: "description", written: undefined },
    { case: "an empty requestParameters map is kept (it is set)", protocol: "HTTP", fields: { requestParameters: {} }, field: "requestParameters", written: {} },
    { case: "the response-only integrationResponseSelectionExpression is no spec field", protocol: "HTTP", fields: { integrationResponseSelectionExpression: "$default" }, field: "integrationResponseSelectionExpression", written: undefined },
  ] as const)("$case", ({ protocol, fields, field, written }) => {
    const file = exportApi(api(protocol, [integration("int0001", fields as Partial<Integration>)]));
    const spec = (file.documents[1] as { spec: Record<string, unknown> }).spec;
    expect(spec.integrationId).toBe("int0001");
    expect(spec[field]).toEqual(written);
    if (written === undefined) expect(spec).not.toHaveProperty(field);
  });

  it.each([
    { case: "authorizationType NONE (the default) is left out", fields: { authorizationType: "NONE" }, field: "authorizationType", written: undefined },
    { case: "authorizationType JWT is kept", fields: { authorizationType: "JWT", authorizerId: "a1" }, field: "authorizationType", written: "JWT" },
    { case: "apiKeyRequired false (the default) is left out", fields: { apiKeyRequired: false }, field: "apiKeyRequired", written: undefined },
    { case: "apiKeyRequired true is kept", fields: { apiKeyRequired: true }, field: "apiKeyRequired", written: true },
    { case: "empty authorizationScopes are kept (they are set)", fields: { authorizationScopes: [] }, field: "authorizationScopes", written: [] },
    { case: "routeId is not pinned (routes are identified by key)", fields: {}, field: "routeId", written: undefined },
    { case: "a route without a target has none", fields: {}, field: "target", written: undefined },
  ] as const)("route: $case", ({ fields, field, written }) => {
    const file = exportApi(api("WEBSOCKET", [], [{ routeId: "r000001", routeKey: "$connect", apiGatewayManaged: false, ...fields } as Route]));
    const spec = (file.documents[1] as { spec: Record<string, unknown> }).spec;
    expect(spec.routeKey).toBe("$connect");
    expect(spec[field]).toEqual(written);
  });

  it("declares the API's protocol without prune, so that nothing is deleted", () => {
    const file = exportApi(api("HTTP", []));
    expect(file.name).toBe(`api-${API_ID}.yaml`);
    expect(file.documents).toEqual([{ kind: "Api", api: API_ID, spec: { protocolType: "HTTP" } }]);
  });

  it("targets exported integrations by name, managed ones by ID, and comments out managed resources", () => {
    const managed = integration("man0001", { integrationUri: "https://quick.example/api", apiGatewayManaged: true });
    const own = integration("own0001", { integrationUri: "https://orders.example/v1" });
    const file = exportApi(api("HTTP", [managed, own], [
      { routeId: "r1", routeKey: "$default", target: "integrations/man0001", apiGatewayManaged: true },
      { routeId: "r2", routeKey: "GET /orders", target: "integrations/own0001", apiGatewayManaged: false },
      { routeId: "r3", routeKey: "GET /quick", target: "integrations/man0001", apiGatewayManaged: false },
    ]));
    const routes = file.documents.filter((document) => document.kind === "Route").map((document) => (document as { spec: Record<string, unknown> }).spec);
    expect(routes).toEqual([
      { routeKey: "GET /orders", target: { integration: "orders-v1" } },
      { routeKey: "GET /quick", target: "integrations/man0001" },
    ]);
    expect(file.documents.filter((document) => document.kind === "Integration").map((document) => (document as { name: string }).name)).toEqual(["orders-v1"]);
    expect(file.commented.documents).toEqual([
      { kind: "Integration", name: "quick-api", api: API_ID, spec: { integrationId: "man0001", integrationType: "HTTP_PROXY", integrationUri: "https://quick.example/api", payloadFormatVersion: "1.0" } },
      { kind: "Route", api: API_ID, spec: { routeKey: "$default", target: { integration: "quick-api" } } },
    ]);
    expect(file.commented.note[0]).toContain("1 integration and 1 route");
  });
});

describe("integrationNames", () => {
  it.each([
    { case: "host and path of a URL", uri: "https://orders.internal.example/v2", type: "HTTP_PROXY", name: "orders-v2" },
    { case: "a path parameter", uri: "https://backend.example/{proxy+}", type: "HTTP_PROXY", name: "backend-proxy" },
    { case: "the last segment of an ARN", uri: "arn:cloud:function:us-east-1:111111111111:function:chat-handler", type: "CLOUD_PROXY", name: "chat-handler" },
    { case: "no URI: the type", uri: undefined, type: "MOCK", name: "mock" },
    { case: "a URI of nothing usable: the type", uri: "::://", type: "HTTP", name: "http" },
    { case: "upper case and odd characters", uri: "https://API.Example.com/Foo Bar/ü", type: "HTTP", name: "api-foo-bar" },
    { case: "a very long path, cut to a valid name", uri: `https://x.example/${"segment/".repeat(20)}`, type: "HTTP", name: "x-segment-segment-segment-segment-segment-segment-segment-se" },
  ] as const)("$case", ({ uri, type, name }) => {
    const names = integrationNames([integration("i1", { integrationUri: uri, integrationType: type })]);
    expect(names.get("i1")).toBe(name);
    expect(name).toMatch(/^[a-z0-9][a-z0-9._-]{0,127}$/);
  });

  it("makes names unique in listing order, the same for the same live state", () => {
    const integrations = [
      integration("i1", { integrationUri: "https://a.example/x" }),
      integration("i2", { integrationUri: "https://a.example/x" }),
      integration("i3", { integrationUri: "https://a.example/x-2" }),
      integration("i4", { integrationUri: "https://a.example/x" }),
    ];
    expect([...integrationNames(integrations).values()]).toEqual(["a-x", "a-x-2", "a-x-2-2", "a-x-3"]);
    expect(integrationNames(integrations)).toEqual(integrationNames(integrations));
  });
});

describe("exportAccount", () => {
  it.each([
    { status: "ENABLED", document: { region: "r", enabled: true } },
    { status: "ENABLING", document: { region: "r", enabled: true } },
    { status: "DISABLED", document: { region: "r", enabled: false } },
    { status: "DISABLING", document: { region: "r", enabled: false } },
    { status: "ENABLED_BY_DEFAULT", document: undefined },
  ] as const)("a Region $status is written as $document", ({ status, document }) => {
    const file = exportAccount("222222222222", {}, { r: status });
    expect(file.documents).toEqual(document ? [{ kind: "RegionOptIn", account: "222222222222", spec: document }] : []);
  });

  it("writes the caller's own account without `account`, contacts in type order, Regions sorted", () => {
    const contact = (type: "BILLING" | "SECURITY", name: string) => ({ AlternateContactType: type, Name: name, Title: "t", EmailAddress: " a@b.co ", PhoneNumber: "0123" });
    const file = exportAccount(SELF, { SECURITY: contact("SECURITY", "S"), BILLING: contact("BILLING", "B"), OPERATIONS: null }, { "z-1": "ENABLED", "a-1": "DISABLED" });
    expect(file.name).toBe("account-self.yaml");
    expect(file.documents).toEqual([
      { kind: "AlternateContact", spec: { type: "BILLING", name: "B", title: "t", emailAddress: " a@b.co ", phoneNumber: "0123" } },
      { kind: "AlternateContact", spec: { type: "SECURITY", name: "S", title: "t", emailAddress: " a@b.co ", phoneNumber: "0123" } },
      { kind: "RegionOptIn", spec: { region: "a-1", enabled: false } },
      { kind: "RegionOptIn", spec: { region: "z-1", enabled: true } },
    ]);
    expect(file.header.join("\n")).toContain("No OPERATIONS contact is set");
  });
});

describe("exportLiveState", () => {
  it("reads every API, the three contact types and the Regions of every account", () => {
    expect(exportNeeds({ apis: [API_ID], accounts: [SELF] })).toEqual([
      { type: "api", ref: API_ID },
      { type: "contact", account: SELF, contactType: "BILLING" },
      { type: "contact", account: SELF, contactType: "OPERATIONS" },
      { type: "contact", account: SELF, contactType: "SECURITY" },
      { type: "regions", account: SELF },
    ]);
  });

  it("reports an API that was not read instead of exporting it", () => {
    const live: LiveState = { apis: {}, apiIdsByName: {}, contacts: {}, regions: { [SELF]: {} } };
    const result = exportLiveState(live, { apis: ["missing001"], accounts: [SELF] });
    expect(result.problems).toEqual(["API missing001 does not exist in this account (or the token may not read it): expected the apiId of one of the caller's APIs"]);
    expect(result.files.map((file) => file.name)).toEqual(["account-self.yaml"]);
  });
});

describe("renderExportedFile", () => {
  const tricky = ["$default", "GET /x:y", "a: b", "1.0", "0123", "+1", "1e3", "true", "yes", "no", "null", "~", "-", "- x", "? q", "#x", "a #b", "'q'", "\"dq\"",
    "{a}", "[b]", "*ref", "&anchor", "!tag", "%x", "@x", "`x", "|", ">", " lead", "trail ", "multi\nline", "-\na", "-\n- a", "?\nq", ":\nx", "tab\there", "é 日本 😀", "a, b", "back\\slash", "", "222222222222"];

  it("writes values YAML would read as something else so that they load back as the same strings", () => {
    const file = exportApi(api("WEBSOCKET", [
      integration("i1", {
        integrationType: "MOCK", integrationUri: undefined, payloadFormatVersion: undefined, timeoutInMillis: 29000,
        requestTemplates: Object.fromEntries(tricky.map((value, index) => [value === "" ? "empty" : `${value}${index}`, value])),
        description: tricky.join(" "),
      }),
    ], tricky.filter((key) => key !== "").map((routeKey, index) => ({ routeId: `r${index}`, routeKey, operationName: routeKey, authorizationScopes: tricky, apiGatewayManaged: false } as Route))));
    const text = renderExportedFile(file);
    expect(readBack(text)).toEqual(file.documents);
    const loaded = parseDesiredText(text, "api.yaml");
    expect(loaded.problems).toEqual([]);
    expect(loaded.documents).toHaveLength(file.documents.length);
  });

  it("starts with the editor modeline and the header, and writes managed resources after `# `", () => {
    const text = renderExportedFile(exportApi(api("HTTP", [integration("man0001", { apiGatewayManaged: true })], [{ routeId: "r1", routeKey: "$default", target: "integrations/man0001", apiGatewayManaged: true }])));
    const lines = text.split("\n");
    expect(lines[0]).toBe("# yaml-language-server: $schema=./converge.schema.json");
    expect(lines[1]).toBe(`# API ${API_ID} "test" (HTTP), written by converge export.`);
    expect(readBack(text)).toEqual([{ kind: "Api", api: API_ID, spec: { protocolType: "HTTP" } }]);
    expect(lines).toContain("#   routeKey: $default");
    expect(lines).toContain("# ---");
    expect(lines.filter((line) => line !== "" && !line.startsWith("#") && !line.startsWith(" ") && !/^(kind|api|spec):/.test(line))).toEqual([]);
  });

  it("joins files into one stream with the modeline once", () => {
    const files = [exportApi(api("HTTP", [integration("i1")])), exportAccount("222222222222", {}, { "ap-east-1": "ENABLED" })];
    const text = renderExportStream(files);
    expect(text.match(/yaml-language-server/g)).toHaveLength(1);
    expect(readBack(text)).toEqual(files.flatMap((file) => file.documents));
    expect(text).toContain('spec: {region: ap-east-1, enabled: true}');
  });
});

describe("exportScopeOf (the flags of converge export)", () => {
  it.each([
    { case: "APIs and accounts, deduplicated", flags: { api: ["a1b2c3d4e5", "a1b2c3d4e5"], account: ["self", "222222222222", "self"] }, scope: { apis: ["a1b2c3d4e5"], accounts: ["self", "222222222222"] } },
    { case: "accounts only", flags: { api: [], account: ["333333333333"] }, scope: { apis: [], accounts: ["333333333333"] } },
  ])("takes $case", ({ flags, scope }) => {
    expect(exportScopeOf(flags)).toEqual(scope);
  });

  it.each([
    { case: "nothing to export", flags: { api: [], account: [] }, messages: ["nothing to export: pass --api ID and/or --account ID|self (each repeatable), or --from-drift REPORT.json"] },
    { case: "an API name instead of an ID", flags: { api: ["orders"], account: [] }, messages: ['--api "orders" is not valid: expected an apiId (10 lower-case letters or digits, e.g. a1b2c3d4e5)'] },
    { case: "every malformed ID at once", flags: { api: ["A1B2C3D4E5"], account: ["SELF", "1234"] }, messages: ['--api "A1B2C3D4E5"', '--account "SELF" is not valid', '--account "1234" is not valid'] },
  ])("rejects $case", ({ flags, messages }) => {
    let error: unknown;
    try {
      exportScopeOf(flags);
    } catch (caught) {
      error = caught;
    }
    expect((error as { code?: string }).code).toBe("CONVERGE_CLI");
    for (const message of messages) expect((error as Error).message).toContain(message);
  });
});
