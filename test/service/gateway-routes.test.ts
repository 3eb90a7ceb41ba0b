import { beforeAll, describe, expect, it } from "vitest";
import { MAX_ROUTES_PER_API } from "../../src/service/gateway/gateway-service.js";
import { createApi, createApiOfEachProtocol, createIntegration, createRoute, expectBadRequest, expectConflict, expectDeletedAndGone, expectGatewayError, expectNotFound, expectStatus, inBatches, MISSING_API, type Protocol } from "../support/gateway.js";
import { call, type CallResult } from "../support/http.js";
import { useWorld } from "../support/world.js";

/**
 * Routes of HTTP and WebSocket APIs over real HTTP: the Route field table, per-protocol
 * rules, HTTP route keys, AuthorizationType per protocol, the error table of GetRoute, DeleteRoute and
 * UpdateRoute, CreateRoute/GetRoutes (docs/manual/embedded-service.md) and PATCH semantics.
 */

const { service } = useWorld();
let httpApi: string;
let wsApi: string;
let httpIntegration: string;
let wsIntegration: string;
const MISSING_ROUTE = "zzzzzz0";

beforeAll(async () => {
  ({ httpApi, wsApi } = await createApiOfEachProtocol(service));
  httpIntegration = (await createIntegration(service, httpApi, "HTTP")).integrationId;
  wsIntegration = (await createIntegration(service, wsApi, "WEBSOCKET")).integrationId;
});

const apiOf = (protocol: Protocol) => (protocol === "HTTP" ? httpApi : wsApi);
let keyCounter = 0;
/** A route key that no other test uses, valid for the protocol. */
const freshKey = (protocol: Protocol) => (protocol === "HTTP" ? `GET /fresh-${++keyCounter}` : `action${++keyCounter}`);
const routesPath = (apiId: string) => `/v2/apis/${apiId}/routes`;
const routePath = (apiId: string, routeId: string) => `/v2/apis/${apiId}/routes/${routeId}`;


/** Creates a route of `body` in `apiId`: 201 with every field as sent, a generated routeId and apiGatewayManaged false, and GetRoute answers the same; returns it. */
async function createdAndReadBack(apiId: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const created = await call(service, routesPath(apiId), { method: "POST", body });
  expectStatus(created, 201);
  expect(created.json).toEqual({ ...body, routeId: expect.stringMatching(/^[a-z0-9]{7}$/), apiGatewayManaged: false });
  const read = await call(service, routePath(apiId, created.json.routeId), { method: "GET" });
  expectStatus(read, 200);
  expect(read.json).toEqual(created.json);
  return created.json;
}
describe("Route fields round-trip", () => {
  it("returns every field of an HTTP route as created, with server defaults, from CreateRoute, GetRoute and GetRoutes", async () => {
    const body = {
      routeKey: "GET /orders/{id}",
      authorizationType: "JWT",
      authorizerId: "jwtauth1",
      authorizationScopes: ["orders.read", "orders.write"],
      target: `integrations/${httpIntegration}`,
      operationName: "GetOrder",
    };
    const created = await createdAndReadBack(httpApi, body);
    const listed = await call(service, routesPath(httpApi), { method: "GET" });
    expectStatus(listed, 200);
    expect(listed.json.items).toContainEqual(created);
  });

  it("returns every field of a WebSocket route as created, including the WebSocket-only ones", async () => {
    const body = {
      routeKey: "sendMessage",
      authorizationType: "CUSTOM",
      authorizerId: "lambdaauth",
      authorizationScopes: ["chat.write"],
      apiKeyRequired: true,
      requestParameters: { "route.request.header.Authorization": { required: true }, "route.request.querystring.room": { required: false }, "route.request.querystring.any": {} },
      requestModels: { "$default": "MessageModel", "application/json": "JsonModel" },
      modelSelectionExpression: "$request.body.type",
      routeResponseSelectionExpression: "$default",
      target: `integrations/${wsIntegration}`,
      operationName: "SendMessage",
    };
    await createdAndReadBack(wsApi, body);
  });

  it.each([
    { protocol: "HTTP" as const, defaults: { authorizationType: "NONE", apiGatewayManaged: false } },
    { protocol: "WEBSOCKET" as const, defaults: { authorizationType: "NONE", apiKeyRequired: false, apiGatewayManaged: false } },
  ])("shows the server defaults of a $protocol route created with only a routeKey", async ({ protocol, defaults }) => {
    const routeKey = freshKey(protocol);
    const created = await createRoute(service, apiOf(protocol), { routeKey });
    const read = await call(service, routePath(apiOf(protocol), created.routeId), { method: "GET" });
    expect(read.json).toEqual({ routeId: created.routeId, routeKey, ...defaults });
  });

  it("does not let a caller set routeId or apiGatewayManaged", async () => {
    const created = await createRoute(service, httpApi, { routeKey: freshKey("HTTP"), routeId: "chosen1", apiGatewayManaged: true });
    expect(created.routeId).not.toBe("chosen1");
    expect(created.apiGatewayManaged).toBe(false);
    const patched = await call(service, routePath(httpApi, created.routeId), { method: "PATCH", body: { apiGatewayManaged: true } });
    expectStatus(patched, 200);
    expect(patched.json.apiGatewayManaged).toBe(false);
  });
});

/** Each WebSocket-only route field with a valid value. */
const WEBSOCKET_ONLY_ROUTE_FIELDS: ReadonlyArray<{ field: string; value: unknown }> = [
  { field: "apiKeyRequired", value: true },
  { field: "requestParameters", value: { "route.request.querystring.id": { required: true } } },
  { field: "requestModels", value: { "$default": "Model" } },
  { field: "modelSelectionExpression", value: "$request.body.type" },
  { field: "routeResponseSelectionExpression", value: "$default" },
];

describe("WebSocket-only route fields", () => {
  it.each(WEBSOCKET_ONLY_ROUTE_FIELDS)("accepts $field on a WebSocket route on create and on update", async ({ field, value }) => {
    const created = await createRoute(service, wsApi, { routeKey: freshKey("WEBSOCKET"), [field]: value });
    expect(created[field]).toEqual(value);
    const bare = await createRoute(service, wsApi, { routeKey: freshKey("WEBSOCKET") });
    const patched = await call(service, routePath(wsApi, bare.routeId), { method: "PATCH", body: { [field]: value } });
    expectStatus(patched, 200);
    expect(patched.json[field]).toEqual(value);
    const read = await call(service, routePath(wsApi, bare.routeId), { method: "GET" });
    expect(read.json[field]).toEqual(value);
  });

  it.each(WEBSOCKET_ONLY_ROUTE_FIELDS)("rejects $field on an HTTP route on create", async ({ field, value }) => {
    const routeKey = freshKey("HTTP");
    const result = await call(service, routesPath(httpApi), { method: "POST", body: { routeKey, [field]: value } });
    expectBadRequest(result, field, new RegExp(`${field} is for WebSocket APIs only`));
    const listed = await call(service, `${routesPath(httpApi)}?maxResults=500`, { method: "GET" });
    expect(listed.json.items.map((route: { routeKey: string }) => route.routeKey)).not.toContain(routeKey);
  });

  it.each(WEBSOCKET_ONLY_ROUTE_FIELDS)("rejects $field on an HTTP route on update and leaves the route unchanged", async ({ field, value }) => {
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP"), operationName: "Before" });
    const result = await call(service, routePath(httpApi, route.routeId), { method: "PATCH", body: { [field]: value, operationName: "After" } });
    expectBadRequest(result, field, new RegExp(`${field} is for WebSocket APIs only`));
    const read = await call(service, routePath(httpApi, route.routeId), { method: "GET" });
    expect(read.json).toEqual(route);
  });
});

describe("AuthorizationType per protocol", () => {
  /** Creates a route of `protocol` with only a route key, PATCHes `patch` into it, and returns the PATCH's answer and the route read after. */
  async function patchFreshRoute(protocol: Protocol, patch: Record<string, unknown>): Promise<{ patched: CallResult; read: CallResult }> {
    const bare = await createRoute(service, apiOf(protocol), { routeKey: freshKey(protocol) });
    const patched = await call(service, routePath(apiOf(protocol), bare.routeId), { method: "PATCH", body: patch });
    return { patched, read: await call(service, routePath(apiOf(protocol), bare.routeId), { method: "GET" }) };
  }

  /** The authorizationType values of each protocol, accepted and rejected: one row per protocol and value. */
  const values = (byProtocol: Readonly<Record<Protocol, ReadonlyArray<unknown>>>) =>
    (["HTTP", "WEBSOCKET"] as const).flatMap((protocol) => byProtocol[protocol].map((value) => ({ protocol, value })));
  const accepted = values({ HTTP: ["NONE", "JWT", "CLOUD_IAM", "CUSTOM"], WEBSOCKET: ["NONE", "CLOUD_IAM", "CUSTOM"] });
  const rejected = values({ HTTP: ["AWS_IAM", "none", 1], WEBSOCKET: ["JWT", "AWS_IAM", ""] });

  it.each(accepted)("accepts authorizationType $value on a $protocol route on create and on update", async ({ protocol, value }) => {
    const created = await createRoute(service, apiOf(protocol), { routeKey: freshKey(protocol), authorizationType: value });
    expect(created.authorizationType).toBe(value);
    const { patched, read } = await patchFreshRoute(protocol, { authorizationType: value });
    expectStatus(patched, 200);
    expect(read.json.authorizationType).toBe(value);
  });

  it.each(rejected)("rejects authorizationType $value on a $protocol route on create and on update", async ({ protocol, value }) => {
    const created = await call(service, routesPath(apiOf(protocol)), { method: "POST", body: { routeKey: freshKey(protocol), authorizationType: value } });
    expectBadRequest(created, "authorizationType");
    const { patched, read } = await patchFreshRoute(protocol, { authorizationType: value });
    expectBadRequest(patched, "authorizationType");
    expect(read.json.authorizationType).toBe("NONE");
  });
});

describe("route keys", () => {
  const table: ReadonlyArray<{ protocol: Protocol; routeKey: string; accepted: boolean }> = [
    { protocol: "HTTP", routeKey: "$default", accepted: true },
    { protocol: "HTTP", routeKey: "GET /orders", accepted: true },
    { protocol: "HTTP", routeKey: "ANY /{proxy+}", accepted: true },
    { protocol: "HTTP", routeKey: "POST /orders/{id}/items", accepted: true },
    { protocol: "HTTP", routeKey: "get /orders", accepted: false },
    { protocol: "HTTP", routeKey: "GET orders", accepted: false },
    { protocol: "HTTP", routeKey: "FETCH /x", accepted: false },
    { protocol: "HTTP", routeKey: "GET", accepted: false },
    { protocol: "HTTP", routeKey: "sendMessage", accepted: false },
    { protocol: "HTTP", routeKey: "$connect", accepted: false },
    { protocol: "WEBSOCKET", routeKey: "sendMessage", accepted: true },
    { protocol: "WEBSOCKET", routeKey: "$connect", accepted: true },
    { protocol: "WEBSOCKET", routeKey: "$disconnect", accepted: true },
    { protocol: "WEBSOCKET", routeKey: "$default", accepted: true },
    { protocol: "WEBSOCKET", routeKey: "GET orders", accepted: true },
  ];

  it.each(table.filter((row) => row.accepted))("accepts routeKey $routeKey on a $protocol API", async ({ protocol, routeKey }) => {
    // a dedicated API per row: "$default" may exist only once per API
    const { apiId } = await createApi(service, protocol);
    const created = await createRoute(service, apiId, { routeKey });
    expect(created.routeKey).toBe(routeKey);
    const read = await call(service, routePath(apiId, created.routeId), { method: "GET" });
    expect(read.json.routeKey).toBe(routeKey);
  });

  it.each(table.filter((row) => !row.accepted))("rejects routeKey $routeKey on a $protocol API on create and on update", async ({ protocol, routeKey }) => {
    const created = await call(service, routesPath(apiOf(protocol)), { method: "POST", body: { routeKey } });
    expectBadRequest(created, "routeKey", /expected "\$default" or "METHOD \/path"/);
    const route = await createRoute(service, apiOf(protocol), { routeKey: freshKey(protocol) });
    const patched = await call(service, routePath(apiOf(protocol), route.routeId), { method: "PATCH", body: { routeKey } });
    expectBadRequest(patched, "routeKey");
    const read = await call(service, routePath(apiOf(protocol), route.routeId), { method: "GET" });
    expect(read.json.routeKey).toBe(route.routeKey);
  });

  it.each<{ protocol: Protocol; body: Record<string, unknown> }>([
    { protocol: "HTTP", body: {} },
    { protocol: "WEBSOCKET", body: { operationName: "x" } },
    { protocol: "HTTP", body: { routeKey: "" } },
    { protocol: "WEBSOCKET", body: { routeKey: null } },
    { protocol: "WEBSOCKET", body: { routeKey: 7 } },
  ])("rejects a $protocol CreateRoute without a valid routeKey: $body", async ({ protocol, body }) => {
    expectBadRequest(await call(service, routesPath(apiOf(protocol)), { method: "POST", body }), "routeKey");
  });

  it("refuses a duplicate routeKey on create and on update with 409", async () => {
    const { apiId } = await createApi(service, "HTTP");
    const first = await createRoute(service, apiId, { routeKey: "GET /dup" });
    const second = await createRoute(service, apiId, { routeKey: "GET /other" });
    expectConflict(await call(service, routesPath(apiId), { method: "POST", body: { routeKey: "GET /dup" } }));
    expectConflict(await call(service, routePath(apiId, second.routeId), { method: "PATCH", body: { routeKey: "GET /dup" } }));
    const read = await call(service, routePath(apiId, second.routeId), { method: "GET" });
    expect(read.json.routeKey).toBe("GET /other");
    // the route's own key is no conflict, and the same key in another API is none either
    expectStatus(await call(service, routePath(apiId, first.routeId), { method: "PATCH", body: { routeKey: "GET /dup" } }), 200);
    await createRoute(service, httpApi, { routeKey: "GET /dup" });
  });
});

describe("route targets", () => {
  it("accepts a target naming an integration of the same API, on create and on update", async () => {
    const other = await createIntegration(service, httpApi, "HTTP");
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP"), target: `integrations/${httpIntegration}` });
    expect(route.target).toBe(`integrations/${httpIntegration}`);
    const patched = await call(service, routePath(httpApi, route.routeId), { method: "PATCH", body: { target: `integrations/${other.integrationId}` } });
    expectStatus(patched, 200);
    expect(patched.json.target).toBe(`integrations/${other.integrationId}`);
  });

  it.each([
    { label: "an integration of another API", target: () => `integrations/${wsIntegration}` },
    { label: "an integration that does not exist", target: () => "integrations/zzzzzz0" },
    { label: "a URL", target: () => "https://backend.example/x" },
    { label: "a bare integration ID", target: () => httpIntegration },
    { label: "an empty string", target: () => "" },
    { label: "a number", target: () => 5 },
  ])("rejects a target naming $label on create and on update", async ({ target }) => {
    const created = await call(service, routesPath(httpApi), { method: "POST", body: { routeKey: freshKey("HTTP"), target: target() } });
    expectBadRequest(created, "target");
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP") });
    const patched = await call(service, routePath(httpApi, route.routeId), { method: "PATCH", body: { target: target() } });
    expectBadRequest(patched, "target");
    const read = await call(service, routePath(httpApi, route.routeId), { method: "GET" });
    expect(read.json.target).toBeUndefined();
  });
});

describe("route PATCH semantics", () => {
  it("leaves absent fields unchanged", async () => {
    const route = await createRoute(service, httpApi, {
      routeKey: freshKey("HTTP"), authorizationType: "JWT", authorizerId: "auth1", authorizationScopes: ["a"], target: `integrations/${httpIntegration}`, operationName: "Before",
    });
    const patched = await call(service, routePath(httpApi, route.routeId), { method: "PATCH", body: { operationName: "After" } });
    expectStatus(patched, 200);
    expect(patched.json).toEqual({ ...route, operationName: "After" });
    const empty = await call(service, routePath(httpApi, route.routeId), { method: "PATCH", body: {} });
    expectStatus(empty, 200);
    expect(empty.json).toEqual({ ...route, operationName: "After" });
    const read = await call(service, routePath(httpApi, route.routeId), { method: "GET" });
    expect(read.json).toEqual({ ...route, operationName: "After" });
  });

  it("clears optional fields set to null, and a cleared defaulted field shows its default again", async () => {
    const route = await createRoute(service, httpApi, {
      routeKey: freshKey("HTTP"), authorizationType: "JWT", authorizerId: "auth1", authorizationScopes: ["a"], target: `integrations/${httpIntegration}`, operationName: "Op",
    });
    const patched = await call(service, routePath(httpApi, route.routeId), {
      method: "PATCH", body: { authorizationType: null, authorizerId: null, authorizationScopes: null, target: null, operationName: null },
    });
    expectStatus(patched, 200);
    const expected = { routeId: route.routeId, routeKey: route.routeKey, authorizationType: "NONE", apiGatewayManaged: false };
    expect(patched.json).toEqual(expected);
    expect((await call(service, routePath(httpApi, route.routeId), { method: "GET" })).json).toEqual(expected);
  });

  it("clears WebSocket-only fields set to null, apiKeyRequired showing false again", async () => {
    const route = await createRoute(service, wsApi, {
      routeKey: freshKey("WEBSOCKET"), apiKeyRequired: true, requestModels: { "$default": "M" }, modelSelectionExpression: "$request.body.t",
    });
    const patched = await call(service, routePath(wsApi, route.routeId), {
      method: "PATCH", body: { apiKeyRequired: null, requestModels: null, modelSelectionExpression: null },
    });
    expectStatus(patched, 200);
    expect(patched.json).toEqual({ routeId: route.routeId, routeKey: route.routeKey, authorizationType: "NONE", apiKeyRequired: false, apiGatewayManaged: false });
  });

  it("rejects routeKey null and leaves the route unchanged", async () => {
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP") });
    expectBadRequest(await call(service, routePath(httpApi, route.routeId), { method: "PATCH", body: { routeKey: null } }), "routeKey");
    expect((await call(service, routePath(httpApi, route.routeId), { method: "GET" })).json).toEqual(route);
  });

  it.each<{ label: string; raw?: string; body?: unknown }>([
    { label: "no body", raw: "" },
    { label: "a JSON array", body: [] },
    { label: "a JSON string", body: "x" },
    { label: "malformed JSON", raw: "{" },
    { label: "authorizationScopes as a string", body: { authorizationScopes: "a" } },
    { label: "apiKeyRequired as a string", body: { apiKeyRequired: "true" } },
    { label: "operationName as a number", body: { operationName: 3 } },
  ])("rejects an UpdateRoute body with $label", async ({ raw, body }) => {
    const route = await createRoute(service, wsApi, { routeKey: freshKey("WEBSOCKET") });
    const result = await call(service, routePath(wsApi, route.routeId), {
      method: "PATCH", ...(raw !== undefined ? { raw, headers: { "content-type": "application/json" } } : { body }),
    });
    expectGatewayError(result, 400, "BadRequestException");
    expect((await call(service, routePath(wsApi, route.routeId), { method: "GET" })).json).toEqual(route);
  });
});

describe("route operations: not found", () => {
  const operations = [
    { operation: "GetRoute", method: "GET" as const, body: undefined },
    { operation: "DeleteRoute", method: "DELETE" as const, body: undefined },
    { operation: "UpdateRoute", method: "PATCH" as const, body: { operationName: "x" } },
  ];

  it.each(operations)("rejects $operation on a missing API with 404 resourceType Api", async ({ method, body }) => {
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP") });
    expectNotFound(await call(service, routePath(MISSING_API, route.routeId), { method, body }), "Api");
  });

  it.each(operations)("rejects $operation on another account's API with 404 resourceType Api", async ({ method, body }) => {
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP") });
    expectNotFound(await call(service, routePath(httpApi, route.routeId), { method, body, token: "standalone-token" }), "Api");
    expect((await call(service, routePath(httpApi, route.routeId), { method: "GET" })).json).toEqual(route);
  });

  it.each(operations)("rejects $operation on a missing route with 404 resourceType Route", async ({ method, body }) => {
    expectNotFound(await call(service, routePath(httpApi, MISSING_ROUTE), { method, body }), "Route");
  });

  it.each(operations)("rejects $operation on a route of another API with 404 resourceType Route", async ({ method, body }) => {
    const route = await createRoute(service, wsApi, { routeKey: freshKey("WEBSOCKET") });
    expectNotFound(await call(service, routePath(httpApi, route.routeId), { method, body }), "Route");
  });

  it("rejects CreateRoute and GetRoutes on a missing API with 404 resourceType Api", async () => {
    expectNotFound(await call(service, routesPath(MISSING_API), { method: "POST", body: { routeKey: "GET /x" } }), "Api");
    expectNotFound(await call(service, routesPath(MISSING_API), { method: "GET" }), "Api");
    expectNotFound(await call(service, routesPath(httpApi), { method: "GET", token: "standalone-token" }), "Api");
  });
});

describe("DeleteRoute", () => {
  it("deletes a route with 204 and no body; the route is then 404 and gone from GetRoutes", async () => {
    const route = await createRoute(service, httpApi, { routeKey: freshKey("HTTP"), target: `integrations/${httpIntegration}` });
    await expectDeletedAndGone(service, { item: routePath(httpApi, route.routeId), list: routesPath(httpApi) }, "Route", route.routeId);
    // its route key is free again
    await createRoute(service, httpApi, { routeKey: route.routeKey });
  });
});

describe("route limit", () => {
  it(`refuses CreateRoute with 409 once an API holds ${MAX_ROUTES_PER_API} routes, and accepts again after a delete`, async () => {
    const { apiId } = await createApi(service, "WEBSOCKET");
    const routes = await inBatches(MAX_ROUTES_PER_API, 16, (i) => createRoute(service, apiId, { routeKey: `r${i}` }));
    expectConflict(await call(service, routesPath(apiId), { method: "POST", body: { routeKey: "one-too-many" } }));
    const listed = await call(service, `${routesPath(apiId)}?maxResults=500`, { method: "GET" });
    expect(listed.json.items).toHaveLength(MAX_ROUTES_PER_API);
    expect(listed.json.nextToken).toBeUndefined();
    expectStatus(await call(service, routePath(apiId, routes[0].routeId), { method: "DELETE" }), 204);
    await createRoute(service, apiId, { routeKey: "one-too-many" });
  });
});
