import { beforeAll, describe, expect, it } from "vitest";
import { MAX_INTEGRATIONS_PER_API } from "../../src/service/gateway/gateway-service.js";
import { createApi, createApiOfEachProtocol, createIntegration, expectBadRequest, expectConflict, expectDeletedAndGone, expectGatewayError, expectNotFound, expectStatus, inBatches, integrationBody, MISSING_API, type Protocol } from "../support/gateway.js";
import { call } from "../support/http.js";
import { useWorld } from "../support/world.js";

/**
 * Integrations of HTTP and WebSocket APIs over real HTTP: the Integration field table,
 * HTTP-only and WebSocket-only fields, enums, timeoutInMillis ranges and defaults,
 * responseParameters status keys, the three requestParameters shapes, the error table of
 * GetIntegrations and CreateIntegration, GetIntegration/UpdateIntegration/DeleteIntegration
 * (docs/manual/embedded-service.md) and PATCH semantics.
 */

const { service } = useWorld();
let httpApi: string;
let wsApi: string;
const MISSING_INTEGRATION = "zzzzzz0";

beforeAll(async () => {
  ({ httpApi, wsApi } = await createApiOfEachProtocol(service));
});

const apiOf = (protocol: Protocol) => (protocol === "HTTP" ? httpApi : wsApi);
const integrationsPath = (apiId: string) => `/v2/apis/${apiId}/integrations`;
const integrationPath = (apiId: string, integrationId: string) => `/v2/apis/${apiId}/integrations/${integrationId}`;
const other = (protocol: Protocol): Protocol => (protocol === "HTTP" ? "WEBSOCKET" : "HTTP");

async function getIntegration(protocol: Protocol, integrationId: string): Promise<any> {
  const read = await call(service, integrationPath(apiOf(protocol), integrationId), { method: "GET" });
  expectStatus(read, 200);
  return read.json;
}

/** Creates with `fields`, expects 201, and checks GetIntegration returns the same body. */
async function expectCreated(protocol: Protocol, fields: Record<string, unknown>): Promise<any> {
  const created = await call(service, integrationsPath(apiOf(protocol)), { method: "POST", body: integrationBody(protocol, fields) });
  expectStatus(created, 201);
  expect(await getIntegration(protocol, created.json.integrationId)).toEqual(created.json);
  return created.json;
}

/** Updates with `patch`, expects 200, and checks GetIntegration returns the same body. */
async function expectUpdated(protocol: Protocol, integrationId: string, patch: Record<string, unknown>): Promise<any> {
  const updated = await call(service, integrationPath(apiOf(protocol), integrationId), { method: "PATCH", body: patch });
  expectStatus(updated, 200);
  expect(await getIntegration(protocol, integrationId)).toEqual(updated.json);
  return updated.json;
}

/** Expects CreateIntegration to answer 400 naming `field`, and no integration to have been created. */
async function expectCreateRejected(protocol: Protocol, fields: Record<string, unknown>, field: string, pattern?: RegExp): Promise<void> {
  const before = await call(service, `${integrationsPath(apiOf(protocol))}?maxResults=500`, { method: "GET" });
  const result = await call(service, integrationsPath(apiOf(protocol)), { method: "POST", body: integrationBody(protocol, fields) });
  expectBadRequest(result, field, pattern);
  const after = await call(service, `${integrationsPath(apiOf(protocol))}?maxResults=500`, { method: "GET" });
  expect(after.json.items).toHaveLength(before.json.items.length);
}

/** Expects UpdateIntegration to answer 400 naming `field`, and the integration to be unchanged. */
async function expectUpdateRejected(protocol: Protocol, patch: Record<string, unknown>, field: string, pattern?: RegExp, base: Record<string, unknown> = {}): Promise<void> {
  const integration = await createIntegration(service, apiOf(protocol), protocol, base);
  const result = await call(service, integrationPath(apiOf(protocol), integration.integrationId), { method: "PATCH", body: patch });
  expectBadRequest(result, field, pattern);
  expect(await getIntegration(protocol, integration.integrationId)).toEqual(integration);
}

describe("Integration fields round-trip", () => {
  it.each<{ label: string; protocol: Protocol; body: Record<string, unknown> }>([
    {
      label: "HTTP private integration",
      protocol: "HTTP",
      body: {
        description: "orders behind a VPC link",
        integrationType: "HTTP_PROXY",
        integrationMethod: "GET",
        integrationUri: "arn:cloud:elasticloadbalancing:us-east-1:111111111111:listener/app/orders/abc/def",
        tlsConfig: { serverNameToVerify: "orders.internal.example" },
        credentialsArn: "arn:cloud:iam::111111111111:role/gateway",
        connectionType: "VPC_LINK",
        connectionId: "vpclnk1",
        requestParameters: { "append:header.x-user": "$context.authorizer.user", "overwrite:querystring.q": "'fixed'", "remove:path.id": "''" },
        responseParameters: { "200": { "overwrite:statuscode": "204" }, "404": { "append:header.x-miss": "yes" } },
        timeoutInMillis: 12_345,
        payloadFormatVersion: "2.0",
      },
    },
    {
      label: "HTTP integration with a subtype",
      protocol: "HTTP",
      body: {
        integrationType: "CLOUD_PROXY",
        integrationSubtype: "SQS-SendMessage",
        credentialsArn: "arn:cloud:iam::111111111111:role/sqs",
        requestParameters: { QueueUrl: "$request.header.queueUrl", MessageBody: "$request.body.message" },
        payloadFormatVersion: "1.0",
        timeoutInMillis: 30_000,
      },
    },
    {
      label: "WebSocket integration",
      protocol: "WEBSOCKET",
      body: {
        description: "chat backend",
        integrationType: "CLOUD",
        integrationMethod: "POST",
        integrationUri: "arn:cloud:lambda:us-east-1:111111111111:function:chat",
        credentialsArn: "arn:cloud:iam::111111111111:role/chat",
        connectionType: "INTERNET",
        requestParameters: { "integration.request.header.x-room": "method.request.querystring.room", "integration.request.header.x-fixed": "'fixed'" },
        requestTemplates: { "application/json": "{\"action\": $input.json('$.action')}", "text/plain": "$input.body" },
        templateSelectionExpression: "\\$default",
        passthroughBehavior: "WHEN_NO_TEMPLATES",
        contentHandlingStrategy: "CONVERT_TO_TEXT",
        timeoutInMillis: 29_000,
        payloadFormatVersion: "1.0",
      },
    },
  ])("returns every field of a $label as created, from CreateIntegration, GetIntegration and GetIntegrations", async ({ protocol, body }) => {
    const created = await call(service, integrationsPath(apiOf(protocol)), { method: "POST", body });
    expectStatus(created, 201);
    expect(created.json).toEqual({ connectionType: "INTERNET", ...body, integrationId: expect.stringMatching(/^[a-z0-9]{7}$/), apiGatewayManaged: false });
    expect(await getIntegration(protocol, created.json.integrationId)).toEqual(created.json);
    const listed = await call(service, `${integrationsPath(apiOf(protocol))}?maxResults=500`, { method: "GET" });
    expect(listed.json.items).toContainEqual(created.json);
  });

  it.each<{ protocol: Protocol; body: Record<string, unknown>; defaults: Record<string, unknown> }>([
    { protocol: "HTTP", body: { integrationType: "HTTP_PROXY", payloadFormatVersion: "1.0" }, defaults: { connectionType: "INTERNET", timeoutInMillis: 30_000, apiGatewayManaged: false } },
    { protocol: "WEBSOCKET", body: { integrationType: "MOCK" }, defaults: { connectionType: "INTERNET", timeoutInMillis: 29_000, apiGatewayManaged: false } },
  ])("shows the server defaults of a $protocol integration created with only the required fields", async ({ protocol, body, defaults }) => {
    const created = await call(service, integrationsPath(apiOf(protocol)), { method: "POST", body });
    expectStatus(created, 201);
    expect(await getIntegration(protocol, created.json.integrationId)).toEqual({ ...body, ...defaults, integrationId: created.json.integrationId });
  });

  it("does not let a caller set integrationId, apiGatewayManaged or integrationResponseSelectionExpression", async () => {
    const created = await createIntegration(service, wsApi, "WEBSOCKET", { integrationId: "chosen1", apiGatewayManaged: true, integrationResponseSelectionExpression: "$integration.response.statuscode" });
    expect(created.integrationId).not.toBe("chosen1");
    expect(created.apiGatewayManaged).toBe(false);
    expect(created.integrationResponseSelectionExpression).toBeUndefined();
    const patched = await expectUpdated("WEBSOCKET", created.integrationId, { apiGatewayManaged: true });
    expect(patched.apiGatewayManaged).toBe(false);
  });
});

/** Each protocol-only integration field with a valid value. */
const PROTOCOL_ONLY_FIELDS: ReadonlyArray<{ protocol: Protocol; field: string; value: unknown }> = [
  { protocol: "HTTP", field: "integrationSubtype", value: "SQS-SendMessage" },
  { protocol: "HTTP", field: "tlsConfig", value: { serverNameToVerify: "backend.example" } },
  { protocol: "HTTP", field: "connectionId", value: "vpclnk1" },
  { protocol: "HTTP", field: "responseParameters", value: { "500": { "overwrite:statuscode": "503" } } },
  { protocol: "WEBSOCKET", field: "requestTemplates", value: { "application/json": "{}" } },
  { protocol: "WEBSOCKET", field: "templateSelectionExpression", value: "\\$default" },
  { protocol: "WEBSOCKET", field: "passthroughBehavior", value: "NEVER" },
  { protocol: "WEBSOCKET", field: "contentHandlingStrategy", value: "CONVERT_TO_BINARY" },
];

describe("protocol-only integration fields", () => {
  it.each(PROTOCOL_ONLY_FIELDS)("accepts $protocol-only $field on its protocol on create and on update", async ({ protocol, field, value }) => {
    const created = await expectCreated(protocol, { [field]: value });
    expect(created[field]).toEqual(value);
    const bare = await createIntegration(service, apiOf(protocol), protocol);
    const updated = await expectUpdated(protocol, bare.integrationId, { [field]: value });
    expect(updated).toEqual({ ...bare, [field]: value });
  });

  it.each(PROTOCOL_ONLY_FIELDS)("rejects $protocol-only $field on the other protocol on create", async ({ protocol, field, value }) => {
    const label = protocol === "HTTP" ? "HTTP APIs" : "WebSocket APIs";
    await expectCreateRejected(other(protocol), { [field]: value }, field, new RegExp(`${field} is for ${label} only`));
  });

  it.each(PROTOCOL_ONLY_FIELDS)("rejects $protocol-only $field on the other protocol on update", async ({ protocol, field, value }) => {
    const label = protocol === "HTTP" ? "HTTP APIs" : "WebSocket APIs";
    await expectUpdateRejected(other(protocol), { [field]: value, description: "changed" }, field, new RegExp(`${field} is for ${label} only`));
  });

  it("names every wrong-protocol field of one request at once", async () => {
    const result = await call(service, integrationsPath(wsApi), { method: "POST", body: integrationBody("WEBSOCKET", { integrationSubtype: "x", connectionId: "y" }) });
    expectBadRequest(result, "integrationSubtype", /^2 validation errors/);
    expect(result.json.message).toContain("connectionId");
  });
});

describe("payloadFormatVersion", () => {
  it("rejects an HTTP integration without payloadFormatVersion on create, and null on update", async () => {
    await expectCreateRejected("HTTP", { payloadFormatVersion: undefined }, "payloadFormatVersion", /payloadFormatVersion is required for HTTP APIs/);
    await expectUpdateRejected("HTTP", { payloadFormatVersion: null }, "payloadFormatVersion");
  });

  it("accepts a WebSocket integration without payloadFormatVersion", async () => {
    const created = await expectCreated("WEBSOCKET", { payloadFormatVersion: undefined });
    expect(created.payloadFormatVersion).toBeUndefined();
  });
});

describe("enums", () => {
  const INTEGRATION_TYPES = ["CLOUD", "HTTP", "MOCK", "HTTP_PROXY", "CLOUD_PROXY"];
  const accepted: ReadonlyArray<{ protocol: Protocol; field: string; value: string }> = [
    ...INTEGRATION_TYPES.flatMap((value) => (["HTTP", "WEBSOCKET"] as const).map((protocol) => ({ protocol, field: "integrationType", value }))),
    ...["INTERNET", "VPC_LINK"].flatMap((value) => (["HTTP", "WEBSOCKET"] as const).map((protocol) => ({ protocol, field: "connectionType", value }))),
    ...["WHEN_NO_MATCH", "NEVER", "WHEN_NO_TEMPLATES"].map((value) => ({ protocol: "WEBSOCKET" as const, field: "passthroughBehavior", value })),
    ...["CONVERT_TO_BINARY", "CONVERT_TO_TEXT"].map((value) => ({ protocol: "WEBSOCKET" as const, field: "contentHandlingStrategy", value })),
  ];
  const rejected: ReadonlyArray<{ protocol: Protocol; field: string; value: unknown }> = [
    { protocol: "HTTP", field: "integrationType", value: "AWS" },
    { protocol: "WEBSOCKET", field: "integrationType", value: "AWS_PROXY" },
    { protocol: "HTTP", field: "integrationType", value: "http_proxy" },
    { protocol: "WEBSOCKET", field: "integrationType", value: "" },
    { protocol: "HTTP", field: "connectionType", value: "VPC" },
    { protocol: "WEBSOCKET", field: "connectionType", value: "internet" },
    { protocol: "WEBSOCKET", field: "passthroughBehavior", value: "ALWAYS" },
    { protocol: "WEBSOCKET", field: "passthroughBehavior", value: true },
    { protocol: "WEBSOCKET", field: "contentHandlingStrategy", value: "CONVERT_TO_JSON" },
    { protocol: "WEBSOCKET", field: "contentHandlingStrategy", value: "convert_to_text" },
  ];

  it.each(accepted)("accepts $field $value on a $protocol API on create and on update", async ({ protocol, field, value }) => {
    const created = await expectCreated(protocol, { [field]: value });
    expect(created[field]).toBe(value);
    const bare = await createIntegration(service, apiOf(protocol), protocol);
    const updated = await expectUpdated(protocol, bare.integrationId, { [field]: value });
    expect(updated[field]).toBe(value);
  });

  it.each(rejected)("rejects $field $value on a $protocol API on create and on update", async ({ protocol, field, value }) => {
    await expectCreateRejected(protocol, { [field]: value }, field, /expected one of/);
    await expectUpdateRejected(protocol, { [field]: value }, field, /expected one of/);
  });

  it.each<{ protocol: Protocol; body: Record<string, unknown> }>([
    { protocol: "HTTP", body: { payloadFormatVersion: "1.0" } },
    { protocol: "WEBSOCKET", body: {} },
    { protocol: "WEBSOCKET", body: { integrationType: null } },
  ])("rejects a $protocol integration without integrationType: $body", async ({ protocol, body }) => {
    expectBadRequest(await call(service, integrationsPath(apiOf(protocol)), { method: "POST", body }), "integrationType");
  });
});

describe("timeoutInMillis", () => {
  const table: ReadonlyArray<{ protocol: Protocol; value: unknown; accepted: boolean }> = [
    { protocol: "HTTP", value: 50, accepted: true },
    { protocol: "HTTP", value: 30_000, accepted: true },
    { protocol: "HTTP", value: 49, accepted: false },
    { protocol: "HTTP", value: 30_001, accepted: false },
    { protocol: "WEBSOCKET", value: 50, accepted: true },
    { protocol: "WEBSOCKET", value: 29_000, accepted: true },
    { protocol: "WEBSOCKET", value: 49, accepted: false },
    { protocol: "WEBSOCKET", value: 29_001, accepted: false },
    { protocol: "WEBSOCKET", value: 30_000, accepted: false },
    { protocol: "HTTP", value: 0, accepted: false },
    { protocol: "HTTP", value: -1, accepted: false },
    { protocol: "HTTP", value: 100.5, accepted: false },
    { protocol: "WEBSOCKET", value: "1000", accepted: false },
  ];

  it.each(table.filter((row) => row.accepted))("accepts timeoutInMillis $value on a $protocol API on create and on update", async ({ protocol, value }) => {
    expect((await expectCreated(protocol, { timeoutInMillis: value })).timeoutInMillis).toBe(value);
    const bare = await createIntegration(service, apiOf(protocol), protocol, { timeoutInMillis: 1000 });
    expect((await expectUpdated(protocol, bare.integrationId, { timeoutInMillis: value })).timeoutInMillis).toBe(value);
  });

  it.each(table.filter((row) => !row.accepted))("rejects timeoutInMillis $value on a $protocol API on create and on update", async ({ protocol, value }) => {
    await expectCreateRejected(protocol, { timeoutInMillis: value }, "timeoutInMillis");
    await expectUpdateRejected(protocol, { timeoutInMillis: value }, "timeoutInMillis", undefined, { timeoutInMillis: 1000 });
  });

  it.each([
    { protocol: "HTTP" as const, range: /expected 50 to 30000/ },
    { protocol: "WEBSOCKET" as const, range: /expected 50 to 29000/ },
  ])("says the $protocol range in the message of an out-of-range timeout", async ({ protocol, range }) => {
    await expectCreateRejected(protocol, { timeoutInMillis: 49 }, "timeoutInMillis", range);
  });
});

describe("responseParameters status keys", () => {
  it.each(["200", "599", "404"])("accepts status key %s on an HTTP API", async (key) => {
    const created = await expectCreated("HTTP", { responseParameters: { [key]: { "overwrite:statuscode": "204" } } });
    expect(Object.keys(created.responseParameters)).toEqual([key]);
  });

  it.each(["199", "600", "abc", "20", "2000", ""])("rejects status key %j on an HTTP API on create and on update", async (key) => {
    await expectCreateRejected("HTTP", { responseParameters: { [key]: { "overwrite:statuscode": "204" } } }, "responseParameters", /status code from 200 to 599/);
    await expectUpdateRejected("HTTP", { responseParameters: { "200": {}, [key]: {} } }, "responseParameters", /status code from 200 to 599/);
  });
});

describe("requestParameters shapes", () => {
  const table: ReadonlyArray<{ label: string; protocol: Protocol; base: Record<string, unknown>; parameters: Record<string, string>; accepted: boolean }> = [
    { label: "WebSocket querystring value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.querystring.x": "method.request.querystring.x" }, accepted: true },
    { label: "WebSocket path value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.path.x": "method.request.path.x" }, accepted: true },
    { label: "WebSocket header value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.header.x": "method.request.header.x" }, accepted: true },
    { label: "WebSocket static value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.header.x": "'value'" }, accepted: true },
    { label: "WebSocket body value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.header.x": "method.request.body.x" }, accepted: false },
    { label: "WebSocket bare value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.header.x": "foo" }, accepted: false },
    { label: "WebSocket unquoted-end value", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.header.x": "'value" }, accepted: false },
    { label: "WebSocket value without a name", protocol: "WEBSOCKET", base: {}, parameters: { "integration.request.header.x": "method.request.header." }, accepted: false },
    { label: "HTTP append:header key", protocol: "HTTP", base: {}, parameters: { "append:header.x": "$request.header.y" }, accepted: true },
    { label: "HTTP overwrite:querystring key", protocol: "HTTP", base: {}, parameters: { "overwrite:querystring.x": "'static'" }, accepted: true },
    { label: "HTTP remove:path key", protocol: "HTTP", base: {}, parameters: { "remove:path.x": "''" }, accepted: true },
    { label: "HTTP key without action", protocol: "HTTP", base: {}, parameters: { "header.x": "v" }, accepted: false },
    { label: "HTTP key with action set", protocol: "HTTP", base: {}, parameters: { "set:header.x": "v" }, accepted: false },
    { label: "HTTP key with location body", protocol: "HTTP", base: {}, parameters: { "append:body.x": "v" }, accepted: false },
    { label: "HTTP key without a name", protocol: "HTTP", base: {}, parameters: { "overwrite:header.": "v" }, accepted: false },
    { label: "HTTP subtype, any key and value", protocol: "HTTP", base: { integrationSubtype: "SQS-SendMessage" }, parameters: { "header.x": "foo", "set:header.x": "method.request.body.x", QueueUrl: "$request.header.q" }, accepted: true },
  ];

  it.each(table.filter((row) => row.accepted))("accepts requestParameters: $label, on create and on update", async ({ protocol, base, parameters }) => {
    expect((await expectCreated(protocol, { ...base, requestParameters: parameters })).requestParameters).toEqual(parameters);
    const bare = await createIntegration(service, apiOf(protocol), protocol, base);
    expect((await expectUpdated(protocol, bare.integrationId, { requestParameters: parameters })).requestParameters).toEqual(parameters);
  });

  it.each(table.filter((row) => !row.accepted))("rejects requestParameters: $label, on create and on update", async ({ protocol, base, parameters }) => {
    await expectCreateRejected(protocol, { ...base, requestParameters: parameters }, "requestParameters");
    await expectUpdateRejected(protocol, { requestParameters: parameters }, "requestParameters", undefined, base);
  });

  it("rejects removing the integrationSubtype of an HTTP integration whose requestParameters need it", async () => {
    await expectUpdateRejected("HTTP", { integrationSubtype: null }, "requestParameters", /without integrationSubtype/, {
      integrationSubtype: "SQS-SendMessage", requestParameters: { QueueUrl: "$request.header.q" },
    });
  });

  it("rejects a requestParameters value that is not a string", async () => {
    await expectCreateRejected("WEBSOCKET", { requestParameters: { "integration.request.header.x": 5 } }, "requestParameters");
  });
});

describe("integration PATCH semantics", () => {
  it("leaves absent fields unchanged", async () => {
    const integration = await createIntegration(service, httpApi, "HTTP", { description: "before", timeoutInMillis: 1000, connectionType: "VPC_LINK", connectionId: "vpc1" });
    expect(await expectUpdated("HTTP", integration.integrationId, { description: "after" })).toEqual({ ...integration, description: "after" });
    expect(await expectUpdated("HTTP", integration.integrationId, {})).toEqual({ ...integration, description: "after" });
  });

  it.each<{ protocol: Protocol; defaultTimeout: number; extra: Record<string, unknown> }>([
    { protocol: "HTTP", defaultTimeout: 30_000, extra: { tlsConfig: { serverNameToVerify: "x" }, connectionId: "vpc1" } },
    { protocol: "WEBSOCKET", defaultTimeout: 29_000, extra: { passthroughBehavior: "NEVER", requestTemplates: { "application/json": "{}" } } },
  ])("clears $protocol fields set to null; cleared timeoutInMillis and connectionType show their defaults again", async ({ protocol, defaultTimeout, extra }) => {
    const integration = await createIntegration(service, apiOf(protocol), protocol, { description: "d", timeoutInMillis: 1000, connectionType: "VPC_LINK", credentialsArn: "arn:x", ...extra });
    const cleared = Object.fromEntries(["description", "timeoutInMillis", "connectionType", "credentialsArn", ...Object.keys(extra)].map((field) => [field, null]));
    const updated = await expectUpdated(protocol, integration.integrationId, cleared);
    expect(updated).toEqual({
      ...integrationBody(protocol),
      integrationId: integration.integrationId,
      connectionType: "INTERNET",
      timeoutInMillis: defaultTimeout,
      apiGatewayManaged: false,
    });
  });

  it("changes integrationType, and rejects integrationType null", async () => {
    const integration = await createIntegration(service, wsApi, "WEBSOCKET");
    expect((await expectUpdated("WEBSOCKET", integration.integrationId, { integrationType: "HTTP", integrationUri: "https://x.example" })).integrationType).toBe("HTTP");
    const result = await call(service, integrationPath(wsApi, integration.integrationId), { method: "PATCH", body: { integrationType: null } });
    expectBadRequest(result, "integrationType");
    expect((await getIntegration("WEBSOCKET", integration.integrationId)).integrationType).toBe("HTTP");
  });

  it.each<{ label: string; raw?: string; contentType?: string; body?: unknown }>([
    { label: "no body", raw: "" },
    { label: "a JSON array", body: [1] },
    { label: "JSON null", raw: "null" },
    { label: "malformed JSON", raw: "{\"description\":" },
    { label: "a text/plain body", raw: "{}", contentType: "text/plain" },
    { label: "description as a number", body: { description: 1 } },
    { label: "tlsConfig as a string", body: { tlsConfig: "x" } },
  ])("rejects an UpdateIntegration body with $label", async ({ raw, contentType, body }) => {
    const integration = await createIntegration(service, httpApi, "HTTP");
    const result = await call(service, integrationPath(httpApi, integration.integrationId), {
      method: "PATCH", ...(raw !== undefined ? { raw, headers: { "content-type": contentType ?? "application/json" } } : { body }),
    });
    expectGatewayError(result, 400, "BadRequestException");
    expect(await getIntegration("HTTP", integration.integrationId)).toEqual(integration);
  });
});

describe("integration operations: errors", () => {
  const singleOperations = [
    { operation: "GetIntegration", method: "GET" as const, body: undefined },
    { operation: "UpdateIntegration", method: "PATCH" as const, body: { description: "x" } },
    { operation: "DeleteIntegration", method: "DELETE" as const, body: undefined },
  ];

  it.each(singleOperations)("rejects $operation on a missing API with 404 resourceType Api", async ({ method, body }) => {
    const integration = await createIntegration(service, httpApi, "HTTP");
    expectNotFound(await call(service, integrationPath(MISSING_API, integration.integrationId), { method, body }), "Api");
  });

  it.each(singleOperations)("rejects $operation on another account's API with 404 resourceType Api", async ({ method, body }) => {
    const integration = await createIntegration(service, httpApi, "HTTP");
    expectNotFound(await call(service, integrationPath(httpApi, integration.integrationId), { method, body, token: "member-token" }), "Api");
    expect(await getIntegration("HTTP", integration.integrationId)).toEqual(integration);
  });

  it.each(singleOperations)("rejects $operation on a missing integration with 404 resourceType Integration", async ({ method, body }) => {
    expectNotFound(await call(service, integrationPath(httpApi, MISSING_INTEGRATION), { method, body }), "Integration");
  });

  it.each(singleOperations)("rejects $operation on an integration of another API with 404 resourceType Integration", async ({ method, body }) => {
    const integration = await createIntegration(service, wsApi, "WEBSOCKET");
    expectNotFound(await call(service, integrationPath(httpApi, integration.integrationId), { method, body }), "Integration");
  });

  it("rejects CreateIntegration and GetIntegrations on a missing or foreign API with 404 resourceType Api", async () => {
    expectNotFound(await call(service, integrationsPath(MISSING_API), { method: "POST", body: integrationBody("WEBSOCKET") }), "Api");
    expectNotFound(await call(service, integrationsPath(httpApi), { method: "POST", body: integrationBody("HTTP"), token: "member-token" }), "Api");
    expectNotFound(await call(service, integrationsPath(MISSING_API), { method: "GET" }), "Api");
    expectNotFound(await call(service, integrationsPath(wsApi), { method: "GET", token: "standalone-token" }), "Api");
  });

  it.each([
    { label: "no body", options: { raw: "" } },
    { label: "malformed JSON", options: { raw: "{", headers: { "content-type": "application/json" } } },
    { label: "a form body", options: { raw: "integrationType=MOCK", headers: { "content-type": "application/x-www-form-urlencoded" } } },
    { label: "a JSON string", options: { body: "MOCK" } },
  ])("rejects a CreateIntegration request with $label", async ({ options }) => {
    expectGatewayError(await call(service, integrationsPath(wsApi), { method: "POST", ...options }), 400, "BadRequestException");
  });

  it.each(["0", "501", "abc", "", "-1", "1.5", "1e2", " 5"])("rejects GetIntegrations with maxResults %j", async (maxResults) => {
    const result = await call(service, `${integrationsPath(httpApi)}?maxResults=${encodeURIComponent(maxResults)}`, { method: "GET" });
    expectBadRequest(result, "maxResults", /expected a string holding an integer from 1 to 500/);
  });

  it.each(["1", "500", "100"])("accepts GetIntegrations with maxResults %s", async (maxResults) => {
    const result = await call(service, `${integrationsPath(httpApi)}?maxResults=${maxResults}`, { method: "GET" });
    expectStatus(result, 200);
    expect(result.json.items.length).toBeLessThanOrEqual(Number(maxResults));
    expect(result.json.items.length).toBeGreaterThan(0);
  });

  it.each(["garbage", "a.b", "x".repeat(1001), "."])("rejects GetIntegrations with a bad nextToken %#", async (nextToken) => {
    const result = await call(service, `${integrationsPath(httpApi)}?nextToken=${encodeURIComponent(nextToken)}`, { method: "GET" });
    expectBadRequest(result, "nextToken");
  });

  it("deletes an integration with 204 and no body; it is then 404 and gone from GetIntegrations", async () => {
    const integration = await createIntegration(service, httpApi, "HTTP");
    await expectDeletedAndGone(service, { item: integrationPath(httpApi, integration.integrationId), list: integrationsPath(httpApi) }, "Integration", integration.integrationId);
  });

  it("refuses to delete an integration a route targets with 409", async () => {
    const integration = await createIntegration(service, httpApi, "HTTP");
    const route = await call(service, `/v2/apis/${httpApi}/routes`, { method: "POST", body: { routeKey: "GET /targeting", target: `integrations/${integration.integrationId}` } });
    expectStatus(route, 201);
    const refused = await call(service, integrationPath(httpApi, integration.integrationId), { method: "DELETE" });
    expectConflict(refused);
    expect(refused.json.message).toContain(route.json.routeId);
    expect(await getIntegration("HTTP", integration.integrationId)).toEqual(integration);
  });
});

describe("integration limit", () => {
  it(`refuses CreateIntegration with 409 once an API holds ${MAX_INTEGRATIONS_PER_API} integrations, and accepts again after a delete`, async () => {
    const { apiId } = await createApi(service, "WEBSOCKET");
    const created = await inBatches(MAX_INTEGRATIONS_PER_API, 16, () => createIntegration(service, apiId, "WEBSOCKET"));
    const refused = await call(service, integrationsPath(apiId), { method: "POST", body: integrationBody("WEBSOCKET") });
    expectConflict(refused);
    expect(refused.json.message).toContain(String(MAX_INTEGRATIONS_PER_API));
    const listed = await call(service, `${integrationsPath(apiId)}?maxResults=500`, { method: "GET" });
    expect(listed.json.items).toHaveLength(MAX_INTEGRATIONS_PER_API);
    expectStatus(await call(service, integrationPath(apiId, created[0].integrationId), { method: "DELETE" }), 204);
    await createIntegration(service, apiId, "WEBSOCKET");
  });
});
