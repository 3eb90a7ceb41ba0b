import { beforeAll, describe, expect, it } from "vitest";
import {
  WEBSOCKET_ROUTE_SELECTION,
  createApi,
  createIntegration,
  createRoute,
  expectBadRequest,
  expectGatewayError,
  expectNotFound,
  expectStatus,
  inBatches,
  integrationBody,
} from "../support/gateway.js";
import { call, type CallOptions } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld } from "../support/worlds.js";

/**
 * The API resource (CreateApi, GetApi, GetApis, DeleteApi; docs/manual/embedded-service.md), APIs seeded by the world,
 * ownership by account, generated IDs, and authentication/authorization of every gateway operation
 * (403 AccessDeniedException).
 */

const SEEDED_HTTP = "seededhttp";
const SEEDED_WS = "seededws01";
const MEMBER_API = "memberapi1";

const { service } = useWorld({
  world: testWorld({
    apis: [
      { apiId: SEEDED_HTTP, name: "seeded-http", protocolType: "HTTP" },
      { apiId: SEEDED_WS, name: "seeded-ws", protocolType: "WEBSOCKET", routeSelectionExpression: WEBSOCKET_ROUTE_SELECTION },
      { apiId: MEMBER_API, accountId: "222222222222", name: "member-api", protocolType: "HTTP" },
    ],
  }),
});

describe("CreateApi", () => {
  it("creates an HTTP API with 201, the default route selection expression, an endpoint and a creation date", async () => {
    const before = Date.now();
    const result = await call(service, "/v2/apis", { method: "POST", body: { name: "orders", protocolType: "HTTP" } });
    expectStatus(result, 201);
    expect(result.json).toEqual({
      apiId: expect.stringMatching(/^[a-z0-9]{10}$/),
      name: "orders",
      protocolType: "HTTP",
      routeSelectionExpression: "${request.method} ${request.path}",
      apiEndpoint: `https://${result.json.apiId}.execute-api.converge.local`,
      createdDate: expect.any(String),
    });
    expect(Date.parse(result.json.createdDate)).toBeGreaterThanOrEqual(before - 1000);
    const read = await call(service, `/v2/apis/${result.json.apiId}`, { method: "GET" });
    expectStatus(read, 200);
    expect(read.json).toEqual(result.json);
  });

  it("creates a WebSocket API with 201 and its route selection expression", async () => {
    const result = await call(service, "/v2/apis", { method: "POST", body: { name: "chat", protocolType: "WEBSOCKET", routeSelectionExpression: WEBSOCKET_ROUTE_SELECTION } });
    expectStatus(result, 201);
    expect(result.json).toMatchObject({ name: "chat", protocolType: "WEBSOCKET", routeSelectionExpression: WEBSOCKET_ROUTE_SELECTION, apiEndpoint: `wss://${result.json.apiId}.execute-api.converge.local` });
    expect((await call(service, `/v2/apis/${result.json.apiId}`, { method: "GET" })).json).toEqual(result.json);
  });

  it.each<{ label: string; body: unknown; field: string }>([
    { label: "no name", body: { protocolType: "HTTP" }, field: "name" },
    { label: "an empty name", body: { name: "", protocolType: "HTTP" }, field: "name" },
    { label: "a name of 129 characters", body: { name: "n".repeat(129), protocolType: "HTTP" }, field: "name" },
    { label: "no protocolType", body: { name: "x" }, field: "protocolType" },
    { label: "protocolType REST", body: { name: "x", protocolType: "REST" }, field: "protocolType" },
    { label: "protocolType http", body: { name: "x", protocolType: "http" }, field: "protocolType" },
    { label: "a WebSocket API without routeSelectionExpression", body: { name: "x", protocolType: "WEBSOCKET" }, field: "routeSelectionExpression" },
    { label: "quick create on a WebSocket API", body: { name: "x", protocolType: "WEBSOCKET", routeSelectionExpression: WEBSOCKET_ROUTE_SELECTION, target: "https://backend.example/x" }, field: "target" },
    { label: "an empty target", body: { name: "x", protocolType: "HTTP", target: "" }, field: "target" },
    { label: "a JSON array", body: [], field: "(body)" },
  ])("rejects a CreateApi request with $label, creating nothing", async ({ body, field }) => {
    const before = await call(service, "/v2/apis?maxResults=500", { method: "GET" });
    expectBadRequest(await call(service, "/v2/apis", { method: "POST", body }), field);
    const after = await call(service, "/v2/apis?maxResults=500", { method: "GET" });
    expect(after.json.items).toEqual(before.json.items);
  });

  it.each(["HTTP", "WEBSOCKET"])("accepts protocolType %s", async (protocolType) => {
    const { json } = await createApi(service, protocolType as "HTTP" | "WEBSOCKET");
    expect(json.protocolType).toBe(protocolType);
  });
});

describe("GetApi, GetApis and ownership", () => {
  it("answers APIs seeded by the world under their fixed IDs", async () => {
    const http = await call(service, `/v2/apis/${SEEDED_HTTP}`, { method: "GET" });
    expectStatus(http, 200);
    expect(http.json).toMatchObject({ apiId: SEEDED_HTTP, name: "seeded-http", protocolType: "HTTP" });
    const ws = await call(service, `/v2/apis/${SEEDED_WS}`, { method: "GET" });
    expect(ws.json).toMatchObject({ apiId: SEEDED_WS, protocolType: "WEBSOCKET", routeSelectionExpression: WEBSOCKET_ROUTE_SELECTION });
    const routes = await call(service, `/v2/apis/${SEEDED_HTTP}/routes`, { method: "GET" });
    expect(routes.json).toEqual({ items: [] });
  });

  it("rejects GetApi of a missing API with 404 resourceType Api", async () => {
    expectNotFound(await call(service, "/v2/apis/zzzzzzzzz0", { method: "GET" }), "Api");
  });

  it("rejects GetApi of another account's API with 404 resourceType Api, both ways", async () => {
    expectNotFound(await call(service, `/v2/apis/${SEEDED_HTTP}`, { method: "GET", token: "member-token" }), "Api");
    expectNotFound(await call(service, `/v2/apis/${MEMBER_API}`, { method: "GET" }), "Api");
    expectStatus(await call(service, `/v2/apis/${MEMBER_API}`, { method: "GET", token: "member-token" }), 200);
  });

  it("lists only the caller's account's APIs in GetApis", async () => {
    const mine = await createApi(service, "HTTP", { name: "mine" });
    const theirs = await createApi(service, "HTTP", { name: "theirs", token: "standalone-token" });
    const adminList = await call(service, "/v2/apis?maxResults=500", { method: "GET" });
    expectStatus(adminList, 200);
    const adminIds = adminList.json.items.map((api: { apiId: string }) => api.apiId);
    expect(adminIds).toEqual(expect.arrayContaining([SEEDED_HTTP, SEEDED_WS, mine.apiId]));
    expect(adminIds).not.toContain(theirs.apiId);
    expect(adminIds).not.toContain(MEMBER_API);
    const standaloneList = await call(service, "/v2/apis", { method: "GET", token: "standalone-token" });
    expect(standaloneList.json).toEqual({ items: [theirs.json] });
    const memberList = await call(service, "/v2/apis", { method: "GET", token: "member-token" });
    expect(memberList.json.items.map((api: { apiId: string }) => api.apiId)).toEqual([MEMBER_API]);
  });
});

describe("DeleteApi", () => {
  it("deletes an API with 204, its routes and integrations with it", async () => {
    const { apiId } = await createApi(service, "HTTP");
    const integration = await createIntegration(service, apiId, "HTTP");
    await createRoute(service, apiId, { routeKey: "GET /x", target: `integrations/${integration.integrationId}` });
    const deleted = await call(service, `/v2/apis/${apiId}`, { method: "DELETE" });
    expectStatus(deleted, 204);
    expect(deleted.text).toBe("");
    expectNotFound(await call(service, `/v2/apis/${apiId}`, { method: "GET" }), "Api");
    expectNotFound(await call(service, `/v2/apis/${apiId}/routes`, { method: "GET" }), "Api");
    expectNotFound(await call(service, `/v2/apis/${apiId}/integrations/${integration.integrationId}`, { method: "GET" }), "Api");
    expectNotFound(await call(service, `/v2/apis/${apiId}`, { method: "DELETE" }), "Api");
  });

  it("rejects DeleteApi of a missing API, and of another account's API, with 404 resourceType Api", async () => {
    expectNotFound(await call(service, "/v2/apis/zzzzzzzzz0", { method: "DELETE" }), "Api");
    expectNotFound(await call(service, `/v2/apis/${MEMBER_API}`, { method: "DELETE" }), "Api");
    expectStatus(await call(service, `/v2/apis/${MEMBER_API}`, { method: "GET", token: "member-token" }), 200);
  });
});

describe("generated IDs", () => {
  it("gives APIs 10 and routes and integrations 7 lower-case alphanumerics, unique over many creates", async () => {
    const apis = await inBatches(40, 8, (i) => createApi(service, i % 2 === 0 ? "HTTP" : "WEBSOCKET"));
    const apiIds = apis.map((api) => api.apiId);
    for (const id of apiIds) expect(id).toMatch(/^[a-z0-9]{10}$/);
    expect(new Set(apiIds).size).toBe(apiIds.length);
    const [httpApi, wsApi] = [apis[0]!.apiId, apis[1]!.apiId];
    const integrations = await inBatches(150, 16, (i) => createIntegration(service, i % 2 === 0 ? httpApi : wsApi, i % 2 === 0 ? "HTTP" : "WEBSOCKET"));
    const routes = await inBatches(150, 16, (i) => createRoute(service, i % 2 === 0 ? httpApi : wsApi, { routeKey: i % 2 === 0 ? `GET /r${i}` : `r${i}` }));
    const childIds = [...integrations.map((i) => i.integrationId as string), ...routes.map((r) => r.routeId as string)];
    for (const id of childIds) expect(id).toMatch(/^[a-z0-9]{7}$/);
    expect(new Set(childIds).size).toBe(childIds.length);
  });
});

describe("authentication and authorization", () => {
  let adminApi: string;
  let adminRoute: string;
  let adminIntegration: string;
  let memberApi: string;
  let memberRoute: string;
  let memberIntegration: string;

  beforeAll(async () => {
    adminApi = (await createApi(service, "HTTP")).apiId;
    adminIntegration = (await createIntegration(service, adminApi, "HTTP")).integrationId;
    adminRoute = (await createRoute(service, adminApi, { routeKey: "GET /auth" })).routeId;
    memberApi = (await createApi(service, "HTTP", { token: "member-token" })).apiId;
    memberIntegration = (await createIntegration(service, memberApi, "HTTP", {}, "member-token")).integrationId;
    memberRoute = (await createRoute(service, memberApi, { routeKey: "GET /auth" }, "member-token")).routeId;
  });

  /** Every gateway operation, as a request against the given API/route/integration. */
  const operations = (api: () => string, route: () => string, integration: () => string): ReadonlyArray<{ operation: string; path: () => string; options: CallOptions; read: boolean }> => [
    { operation: "CreateApi", path: () => "/v2/apis", options: { method: "POST", body: { name: "x", protocolType: "HTTP" } }, read: false },
    { operation: "GetApis", path: () => "/v2/apis", options: { method: "GET" }, read: true },
    { operation: "GetApi", path: () => `/v2/apis/${api()}`, options: { method: "GET" }, read: true },
    { operation: "DeleteApi", path: () => `/v2/apis/${api()}`, options: { method: "DELETE" }, read: false },
    { operation: "CreateRoute", path: () => `/v2/apis/${api()}/routes`, options: { method: "POST", body: { routeKey: "GET /new" } }, read: false },
    { operation: "GetRoutes", path: () => `/v2/apis/${api()}/routes`, options: { method: "GET" }, read: true },
    { operation: "GetRoute", path: () => `/v2/apis/${api()}/routes/${route()}`, options: { method: "GET" }, read: true },
    { operation: "UpdateRoute", path: () => `/v2/apis/${api()}/routes/${route()}`, options: { method: "PATCH", body: { operationName: "x" } }, read: false },
    { operation: "DeleteRoute", path: () => `/v2/apis/${api()}/routes/${route()}`, options: { method: "DELETE" }, read: false },
    { operation: "CreateIntegration", path: () => `/v2/apis/${api()}/integrations`, options: { method: "POST", body: integrationBody("HTTP") }, read: false },
    { operation: "GetIntegrations", path: () => `/v2/apis/${api()}/integrations`, options: { method: "GET" }, read: true },
    { operation: "GetIntegration", path: () => `/v2/apis/${api()}/integrations/${integration()}`, options: { method: "GET" }, read: true },
    { operation: "UpdateIntegration", path: () => `/v2/apis/${api()}/integrations/${integration()}`, options: { method: "PATCH", body: { description: "x" } }, read: false },
    { operation: "DeleteIntegration", path: () => `/v2/apis/${api()}/integrations/${integration()}`, options: { method: "DELETE" }, read: false },
  ];
  const adminOperations = operations(() => adminApi, () => adminRoute, () => adminIntegration);
  const memberOperations = operations(() => memberApi, () => memberRoute, () => memberIntegration);

  const denials: ReadonlyArray<{ label: string; auth: CallOptions }> = [
    { label: "no Authorization header", auth: { token: null } },
    { label: "an unknown token", auth: { token: "no-such-token" } },
    { label: "a Basic Authorization header", auth: { token: null, headers: { authorization: "Basic YWRtaW46YWRtaW4=" } } },
    { label: "a token allowed nothing", auth: { token: "nothing-token" } },
    { label: "a token allowed only account:*", auth: { token: "delegated-token" } },
  ];
  const table = adminOperations.flatMap((op) => denials.map((denial) => ({ ...op, auth: denial.auth, name: `${op.operation} with ${denial.label}` })));

  it.each(table)("rejects $name with 403 AccessDeniedException", async ({ path, options, auth }) => {
    const result = await call(service, path(), { ...options, ...auth });
    expectGatewayError(result, 403, "AccessDeniedException");
  });

  it("leaves every resource in place after the denied writes", async () => {
    expectStatus(await call(service, `/v2/apis/${adminApi}/routes/${adminRoute}`, { method: "GET" }), 200);
    const integration = await call(service, `/v2/apis/${adminApi}/integrations/${adminIntegration}`, { method: "GET" });
    expectStatus(integration, 200);
    expect(integration.json.description).toBeUndefined();
  });

  it.each(memberOperations.filter((op) => !op.read))("refuses $operation to a token allowed only apigateway:Get* with 403", async ({ path, options }) => {
    expectGatewayError(await call(service, path(), { ...options, token: "reader-token" }), 403, "AccessDeniedException");
  });

  it.each(memberOperations.filter((op) => op.read))("allows $operation to a token allowed apigateway:Get* in its own account", async ({ path, options }) => {
    expectStatus(await call(service, path(), { ...options, token: "reader-token" }), 200);
  });

  it("rejects a path no operation serves with 404 NotFoundException without resourceType, even without a token", async () => {
    for (const [method, path] of [["PUT", "/v2/apis"], ["GET", "/v2/nothing"], ["POST", `/v2/apis/${adminApi}`], ["GET", `/v2/apis/${adminApi}/routes/${adminRoute}/extra`]] as const) {
      const result = await call(service, path, { method, token: null });
      expectGatewayError(result, 404, "NotFoundException");
      expect(result.json.resourceType).toBeUndefined();
    }
  });
});
