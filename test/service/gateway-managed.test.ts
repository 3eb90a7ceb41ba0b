import { describe, expect, it } from "vitest";
import {
  WEBSOCKET_ROUTE_SELECTION,
  createApi,
  createIntegration,
  createRoute,
  expectBadRequest,
  expectConflict,
  expectStatus,
} from "../support/gateway.js";
import { call } from "../support/http.js";
import { useWorld } from "../support/world.js";
import { testWorld } from "../support/worlds.js";

/**
 * Quick create and the resources it manages (apiGatewayManaged; docs/manual/embedded-service.md, "Managed
 * resources"), and the 409 ConflictExceptions that protect routes and integrations: a managed route's
 * routeKey, a managed integration's deletion, deleting an integration a route targets, duplicate keys.
 */

const QUICK_TARGET = "https://backend.example/x";
const SEEDED_QUICK = "quickseed1";

const { service } = useWorld({
  world: testWorld({ apis: [{ apiId: SEEDED_QUICK, name: "orders", protocolType: "HTTP", target: "https://backend.example/orders" }] }),
});

/** Quick-creates an HTTP API; returns it with its managed route and integration. */
async function quickCreate(target = QUICK_TARGET): Promise<{ apiId: string; route: any; integration: any }> {
  const { apiId } = await createApi(service, "HTTP", { target });
  return { apiId, ...(await managedResources(apiId)) };
}

async function managedResources(apiId: string): Promise<{ route: any; integration: any }> {
  const routes = await call(service, `/v2/apis/${apiId}/routes`, { method: "GET" });
  const integrations = await call(service, `/v2/apis/${apiId}/integrations`, { method: "GET" });
  expectStatus(routes, 200);
  expectStatus(integrations, 200);
  expect(routes.json.items).toHaveLength(1);
  expect(integrations.json.items).toHaveLength(1);
  return { route: routes.json.items[0], integration: integrations.json.items[0] };
}

describe("quick create", () => {
  it("makes a managed $default route targeting its managed integration", async () => {
    const { apiId, route, integration } = await quickCreate();
    expect(integration).toMatchObject({ integrationId: expect.stringMatching(/^[a-z0-9]{7}$/), integrationUri: QUICK_TARGET, apiGatewayManaged: true, payloadFormatVersion: expect.any(String) });
    expect(route).toEqual({
      routeId: expect.stringMatching(/^[a-z0-9]{7}$/),
      routeKey: "$default",
      target: `integrations/${integration.integrationId}`,
      authorizationType: "NONE",
      apiGatewayManaged: true,
    });
    const single = await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "GET" });
    expect(single.json).toEqual(route);
    const singleIntegration = await call(service, `/v2/apis/${apiId}/integrations/${integration.integrationId}`, { method: "GET" });
    expect(singleIntegration.json).toEqual(integration);
  });

  it("makes the same managed pair for an API the world quick-creates", async () => {
    const { route, integration } = await managedResources(SEEDED_QUICK);
    expect(integration).toMatchObject({ integrationUri: "https://backend.example/orders", apiGatewayManaged: true });
    expect(route).toMatchObject({ routeKey: "$default", target: `integrations/${integration.integrationId}`, apiGatewayManaged: true });
  });

  it("makes a managed pair for a target that is not a URL (a function)", async () => {
    const target = "arn:cloud:lambda:us-east-1:111111111111:function:orders";
    const { route, integration } = await quickCreate(target);
    expect(integration).toMatchObject({ integrationUri: target, apiGatewayManaged: true });
    expect(route).toMatchObject({ routeKey: "$default", target: `integrations/${integration.integrationId}`, apiGatewayManaged: true });
  });

  it("creates nothing managed without a target", async () => {
    const { apiId } = await createApi(service, "HTTP");
    expect((await call(service, `/v2/apis/${apiId}/routes`, { method: "GET" })).json).toEqual({ items: [] });
    expect((await call(service, `/v2/apis/${apiId}/integrations`, { method: "GET" })).json).toEqual({ items: [] });
  });

  it("rejects quick create on a WebSocket API with 400 naming target, creating no API", async () => {
    const before = await call(service, "/v2/apis?maxResults=500", { method: "GET" });
    const result = await call(service, "/v2/apis", {
      method: "POST", body: { name: "chat", protocolType: "WEBSOCKET", routeSelectionExpression: WEBSOCKET_ROUTE_SELECTION, target: QUICK_TARGET },
    });
    expectBadRequest(result, "target");
    const after = await call(service, "/v2/apis?maxResults=500", { method: "GET" });
    expect(after.json.items).toEqual(before.json.items);
  });
});

describe("the managed route", () => {
  it.each(["GET /x", "ANY /{proxy+}", "POST /"])("refuses to change its routeKey to %s with 409, leaving it unchanged", async (routeKey) => {
    const { apiId, route } = await quickCreate();
    const result = await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "PATCH", body: { routeKey } });
    expectConflict(result);
    expect(result.json.message).toContain("$default");
    expect((await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "GET" })).json).toEqual(route);
  });

  it("refuses a routeKey change with 409 even when other fields come along, applying none of them", async () => {
    const { apiId, route } = await quickCreate();
    expectConflict(await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "PATCH", body: { routeKey: "GET /x", operationName: "Changed" } }));
    expect((await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "GET" })).json).toEqual(route);
  });

  it("accepts updates of its other fields, and its own routeKey unchanged, staying managed", async () => {
    const { apiId, route } = await quickCreate();
    const result = await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, {
      method: "PATCH", body: { routeKey: "$default", authorizationType: "JWT", authorizerId: "jwt1", authorizationScopes: ["read"], operationName: "Proxy" },
    });
    expectStatus(result, 200);
    const expected = { ...route, authorizationType: "JWT", authorizerId: "jwt1", authorizationScopes: ["read"], operationName: "Proxy" };
    expect(result.json).toEqual(expected);
    expect((await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "GET" })).json).toEqual(expected);
  });

  it("refuses a second $default route with 409, on create and on update", async () => {
    const { apiId } = await quickCreate();
    expectConflict(await call(service, `/v2/apis/${apiId}/routes`, { method: "POST", body: { routeKey: "$default" } }));
    const other = await createRoute(service, apiId, { routeKey: "GET /other" });
    expectConflict(await call(service, `/v2/apis/${apiId}/routes/${other.routeId}`, { method: "PATCH", body: { routeKey: "$default" } }));
    expect((await call(service, `/v2/apis/${apiId}/routes/${other.routeId}`, { method: "GET" })).json.routeKey).toBe("GET /other");
  });
});

describe("the managed integration", () => {
  it("accepts updates, staying managed", async () => {
    const { apiId, integration } = await quickCreate();
    const result = await call(service, `/v2/apis/${apiId}/integrations/${integration.integrationId}`, {
      method: "PATCH", body: { description: "managed", timeoutInMillis: 5000, integrationUri: "https://backend.example/y", apiGatewayManaged: false },
    });
    expectStatus(result, 200);
    const expected = { ...integration, description: "managed", timeoutInMillis: 5000, integrationUri: "https://backend.example/y", apiGatewayManaged: true };
    expect(result.json).toEqual(expected);
    expect((await call(service, `/v2/apis/${apiId}/integrations/${integration.integrationId}`, { method: "GET" })).json).toEqual(expected);
  });

  it("refuses its deletion with 409, even once no route targets it", async () => {
    const { apiId, route, integration } = await quickCreate();
    const path = `/v2/apis/${apiId}/integrations/${integration.integrationId}`;
    const refused = await call(service, path, { method: "DELETE" });
    expectConflict(refused);
    expect(refused.json.message).toContain(integration.integrationId);
    expectStatus(await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "DELETE" }), 204);
    expectConflict(await call(service, path, { method: "DELETE" }));
    expect((await call(service, path, { method: "GET" })).json).toEqual(integration);
  });
});

describe("integrations that routes target", () => {
  it("refuses to delete an integration a route targets with 409, and deletes it once the route is retargeted", async () => {
    const { apiId } = await createApi(service, "HTTP");
    const first = await createIntegration(service, apiId, "HTTP");
    const second = await createIntegration(service, apiId, "HTTP");
    const route = await createRoute(service, apiId, { routeKey: "GET /orders", target: `integrations/${first.integrationId}` });
    const path = `/v2/apis/${apiId}/integrations/${first.integrationId}`;
    const refused = await call(service, path, { method: "DELETE" });
    expectConflict(refused);
    expect(refused.json.message).toContain(route.routeId);
    expectStatus(await call(service, path, { method: "GET" }), 200);
    expectStatus(await call(service, `/v2/apis/${apiId}/routes/${route.routeId}`, { method: "PATCH", body: { target: `integrations/${second.integrationId}` } }), 200);
    expectStatus(await call(service, path, { method: "DELETE" }), 204);
    expectConflict(await call(service, `/v2/apis/${apiId}/integrations/${second.integrationId}`, { method: "DELETE" }));
  });

  it("refuses while any of several routes targets it; deletes it once the routes are deleted or detached", async () => {
    const { apiId } = await createApi(service, "WEBSOCKET");
    const integration = await createIntegration(service, apiId, "WEBSOCKET");
    const target = `integrations/${integration.integrationId}`;
    const one = await createRoute(service, apiId, { routeKey: "one", target });
    const two = await createRoute(service, apiId, { routeKey: "two", target });
    const path = `/v2/apis/${apiId}/integrations/${integration.integrationId}`;
    const refused = await call(service, path, { method: "DELETE" });
    expectConflict(refused);
    expect(refused.json.message).toContain(one.routeId);
    expect(refused.json.message).toContain(two.routeId);
    expectStatus(await call(service, `/v2/apis/${apiId}/routes/${one.routeId}`, { method: "DELETE" }), 204);
    expectConflict(await call(service, path, { method: "DELETE" }));
    expectStatus(await call(service, `/v2/apis/${apiId}/routes/${two.routeId}`, { method: "PATCH", body: { target: null } }), 200);
    expectStatus(await call(service, path, { method: "DELETE" }), 204);
  });
});
