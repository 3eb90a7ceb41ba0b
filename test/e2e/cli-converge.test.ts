import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CHAT_API,
  E2E_TIMEOUT_MS,
  ORDERS_API,
  converge,
  expectExit,
  liveContact,
  liveIntegrationByUri,
  liveIntegrations,
  liveRegionStatus,
  liveRoute,
  liveRoutes,
  replaceInFile,
  writeCounts,
  writeFiles,
  writeRequests,
  convergedExamples,
  useE2eResources,
} from "./e2e-fixture.js";

/**
 * `converge apply` end to end: the compiled CLI as a subprocess against the embedded service in this
 * process, with the example estate (contacts, an HTTP API with JWT routes, a WebSocket API, Region
 * opt-ins) as real files. Each test starts its own service, so that none depends on another.
 */

const { services, dirs } = useE2eResources();

describe.concurrent("apply from empty", { timeout: E2E_TIMEOUT_MS }, () => {
  it("creates every resource of the example estate, then plans no changes and re-applies with zero writes", async () => {
    const service = await services.start();
    const dir = await dirs.copyOfExamples();

    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(applied, 0);
    expect(applied.stdout).toContain("Plan: 15 to create, 3 to update, 0 to delete, 0 refused, 3 unchanged.");
    expect(applied.stdout).toContain("Apply complete: 18 done, 0 failed.");
    expect(writeCounts(service)).toEqual({ CreateIntegration: 4, CreateRoute: 6, PutAlternateContact: 5, EnableRegion: 3 });
    expect(writeRequests(service).filter((record) => record.status >= 300)).toEqual([]);

    // the HTTP API: the two declared integrations next to the managed one, and three JWT/IAM routes
    const orders = await liveIntegrationByUri(service, ORDERS_API, "https://orders.internal.example/v2");
    expect(orders).toMatchObject({
      integrationType: "HTTP_PROXY", integrationMethod: "ANY", payloadFormatVersion: "1.0", timeoutInMillis: 10000,
      requestParameters: { "overwrite:header.x-tenant": "$context.authorizer.claims.tenant" },
    });
    expect(orders.apiGatewayManaged).not.toBe(true);
    const inventory = await liveIntegrationByUri(service, ORDERS_API, "https://inventory.internal.example/api");
    expect(inventory).toMatchObject({ integrationType: "HTTP_PROXY", integrationMethod: "GET", description: "read-only inventory lookups" });
    expect(await liveIntegrations(service, ORDERS_API)).toHaveLength(3);
    expect((await liveRoutes(service, ORDERS_API)).map((route) => route.routeKey).sort()).toEqual(["$default", "GET /inventory/{sku}", "GET /orders", "POST /orders"]);
    expect(await liveRoute(service, ORDERS_API, "GET /orders")).toMatchObject({ authorizationType: "JWT", authorizerId: "jwtauth1", authorizationScopes: ["orders.read"] });
    expect(await liveRoute(service, ORDERS_API, "POST /orders")).toMatchObject({ authorizationType: "JWT", authorizerId: "jwtauth1", authorizationScopes: ["orders.write"] });
    expect(await liveRoute(service, ORDERS_API, "GET /inventory/{sku}")).toMatchObject({ authorizationType: "CLOUD_IAM" });

    // the WebSocket API
    const chatHandler = await liveIntegrationByUri(service, CHAT_API, "arn:cloud:function:us-east-1:111111111111:function:chat-handler");
    expect(chatHandler).toMatchObject({ integrationType: "CLOUD_PROXY", timeoutInMillis: 29000, contentHandlingStrategy: "CONVERT_TO_TEXT" });
    const chatIntegrations = await liveIntegrations(service, CHAT_API);
    expect(chatIntegrations).toHaveLength(2);
    expect(chatIntegrations.find((integration) => integration.integrationType === "MOCK")).toMatchObject({
      requestTemplates: { "application/json": '{"statusCode": 200}' }, passthroughBehavior: "WHEN_NO_MATCH",
    });
    expect((await liveRoutes(service, CHAT_API)).map((route) => route.routeKey).sort()).toEqual(["$connect", "$disconnect", "sendMessage"]);
    expect(await liveRoute(service, CHAT_API, "$connect")).toMatchObject({
      authorizationType: "CUSTOM", authorizerId: "wsauth01", apiKeyRequired: true, requestParameters: { "route.request.querystring.token": { required: true } },
    });

    // contacts of the management account and of two members
    expect(await liveContact(service, "SECURITY")).toEqual({
      AlternateContactType: "SECURITY", Name: "Security Operations", Title: "CISO", EmailAddress: "security@example.com", PhoneNumber: "+1 555 0100",
    });
    expect(await liveContact(service, "BILLING")).toMatchObject({ Name: "Finance Team" });
    expect(await liveContact(service, "SECURITY", "222222222222")).toMatchObject({ Name: "Payments Security" });
    expect(await liveContact(service, "OPERATIONS", "222222222222")).toMatchObject({ PhoneNumber: "+1 (555) 0111" });
    expect(await liveContact(service, "SECURITY", "333333333333")).toMatchObject({ Name: "Platform Security" });
    expect(await liveContact(service, "OPERATIONS")).toBeNull();

    // Regions: apply waited for ENABLING to settle
    expect(await liveRegionStatus(service, "ap-east-1", "222222222222")).toBe("ENABLED");
    expect(await liveRegionStatus(service, "me-south-1", "333333333333")).toBe("ENABLED");
    expect(await liveRegionStatus(service, "eu-south-1")).toBe("ENABLED");
    expect(await liveRegionStatus(service, "af-south-1", "222222222222")).toBe("DISABLED");

    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 0);
    expect(planned.stdout).toContain("No changes");

    service.requests.reset();
    const again = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(again, 0);
    expect(again.stdout).toContain("No changes");
    expect(service.requests.count({ writesOnly: true })).toBe(0);
    expect(writeRequests(service)).toEqual([]);
    expect(service.requests.count()).toBeGreaterThan(0); // it did read live state
  });

  it("resolves a route target that names an integration to integrations/<id of the integration it created>", async () => {
    const { service } = await convergedExamples(services, dirs);
    const orders = await liveIntegrationByUri(service, ORDERS_API, "https://orders.internal.example/v2");
    const inventory = await liveIntegrationByUri(service, ORDERS_API, "https://inventory.internal.example/api");
    expect(orders.integrationId).not.toBe(inventory.integrationId);
    expect((await liveRoute(service, ORDERS_API, "GET /orders")).target).toBe(`integrations/${orders.integrationId}`);
    expect((await liveRoute(service, ORDERS_API, "POST /orders")).target).toBe(`integrations/${orders.integrationId}`);
    expect((await liveRoute(service, ORDERS_API, "GET /inventory/{sku}")).target).toBe(`integrations/${inventory.integrationId}`);

    const chatHandler = await liveIntegrationByUri(service, CHAT_API, "arn:cloud:function:us-east-1:111111111111:function:chat-handler");
    const mock = (await liveIntegrations(service, CHAT_API)).find((integration) => integration.integrationType === "MOCK")!;
    expect((await liveRoute(service, CHAT_API, "$connect")).target).toBe(`integrations/${chatHandler.integrationId}`);
    expect((await liveRoute(service, CHAT_API, "sendMessage")).target).toBe(`integrations/${chatHandler.integrationId}`);
    expect((await liveRoute(service, CHAT_API, "$disconnect")).target).toBe(`integrations/${mock.integrationId}`);
  });

  it("resolves a target name to an integration that already exists when only the route is new", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    const inventory = await liveIntegrationByUri(service, ORDERS_API, "https://inventory.internal.example/api");
    await writeFiles(dir, { "stock-route.yaml": "kind: Route\napi: a1b2c3d4e5\nspec: {routeKey: GET /stock, target: {integration: inventory-backend}}\n" });

    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(applied, 0);
    expect(writeCounts(service)).toEqual({ CreateRoute: 1 });
    expect(service.requests.records({ operation: "CreateRoute" })[0]!.body).toEqual({
      routeKey: "GET /stock", target: `integrations/${inventory.integrationId}`,
    });
  });
});

describe.concurrent("apply of changed files", { timeout: E2E_TIMEOUT_MS }, () => {
  it("sends only the differing fields of a route and an integration, pairing authorizerId with authorizationType", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    const file = join(dir, "orders-api.yaml");
    await replaceInFile(file, "authorizationScopes: [orders.read]", "authorizationScopes: [orders.read, orders.admin]");
    await replaceInFile(file, "  timeoutInMillis: 10000\n", "  timeoutInMillis: 12000\n");
    // POST /orders: a new authorizer (authorizationType JWT stays as it is in the document)
    await replaceInFile(file, "  authorizerId: jwtauth1\n  authorizationScopes: [orders.write]", "  authorizerId: jwtauth2\n  authorizationScopes: [orders.write]");
    const getOrders = await liveRoute(service, ORDERS_API, "GET /orders");
    const postOrders = await liveRoute(service, ORDERS_API, "POST /orders");
    const orders = await liveIntegrationByUri(service, ORDERS_API, "https://orders.internal.example/v2");

    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 2);
    expect(planned.stdout).toContain("Plan: 0 to create, 3 to update, 0 to delete, 0 refused, 18 unchanged.");
    expect(planned.stdout).toMatch(/~ timeoutInMillis\s+= 10000 -> 12000/);

    service.requests.reset();
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expect(writeCounts(service)).toEqual({ UpdateRoute: 2, UpdateIntegration: 1 });
    const routePatches = Object.fromEntries(service.requests.records({ operation: "UpdateRoute" }).map((record) => [record.path, record.body]));
    expect(routePatches).toEqual({
      [`/v2/apis/${ORDERS_API}/routes/${getOrders.routeId}`]: { authorizationScopes: ["orders.read", "orders.admin"] },
      [`/v2/apis/${ORDERS_API}/routes/${postOrders.routeId}`]: { authorizerId: "jwtauth2", authorizationType: "JWT" },
    });
    const integrationPatches = service.requests.records({ operation: "UpdateIntegration" });
    expect(integrationPatches.map((record) => [record.path, record.body])).toEqual([
      [`/v2/apis/${ORDERS_API}/integrations/${orders.integrationId}`, { timeoutInMillis: 12000 }],
    ]);
    expect(await liveRoute(service, ORDERS_API, "POST /orders")).toMatchObject({ authorizerId: "jwtauth2", authorizationType: "JWT", authorizationScopes: ["orders.write"] });

    expectExit(await converge(service, ["plan", "-f", "."], dir), 0);
  });

  it("treats a reordered authorizationScopes list as unchanged (a set)", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    await replaceInFile(join(dir, "orders-api.yaml"), "authorizationScopes: [orders.read]", "authorizationScopes: [orders.read, orders.admin]");
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    await replaceInFile(join(dir, "orders-api.yaml"), "authorizationScopes: [orders.read, orders.admin]", "authorizationScopes: [orders.admin, orders.read]");
    service.requests.reset();
    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 0);
    expect(service.requests.count({ writesOnly: true })).toBe(0);
  });

  it("deletes a route, an integration and an alternate contact declared ensure: absent", async () => {
    const { service, dir } = await convergedExamples(services, dirs);
    const inventoryRoute = await liveRoute(service, ORDERS_API, "GET /inventory/{sku}");
    const inventory = await liveIntegrationByUri(service, ORDERS_API, "https://inventory.internal.example/api");
    const orders = join(dir, "orders-api.yaml");
    await replaceInFile(orders, "kind: Route\napi: a1b2c3d4e5\nspec:\n  routeKey: GET /inventory/{sku}", "kind: Route\napi: a1b2c3d4e5\nensure: absent\nspec:\n  routeKey: GET /inventory/{sku}");
    await replaceInFile(orders, "kind: Integration\nname: inventory-backend\napi: a1b2c3d4e5\n", "kind: Integration\nname: inventory-backend\napi: a1b2c3d4e5\nensure: absent\n");
    await replaceInFile(
      join(dir, "contacts.yaml"),
      'spec:\n  type: BILLING\n  name: Finance Team\n  title: Controller\n  emailAddress: billing@example.com\n  phoneNumber: "+1 555 0101"\n',
      "ensure: absent\nspec:\n  type: BILLING\n",
    );

    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 2);
    expect(planned.stdout).toContain("Plan: 0 to create, 0 to update, 3 to delete, 0 refused, 18 unchanged.");
    expect(planned.stdout).toContain("# Route/a1b2c3d4e5/GET /inventory/{sku} will be deleted");
    expect(planned.stdout).toContain("# Integration/a1b2c3d4e5/inventory-backend will be deleted");
    expect(planned.stdout).toContain("# AlternateContact/self/BILLING will be deleted");

    service.requests.reset();
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expect(writeRequests(service).map((record) => [record.operation, record.path, record.status]).sort()).toEqual([
      ["DeleteAlternateContact", "/deleteAlternateContact", 200],
      ["DeleteIntegration", `/v2/apis/${ORDERS_API}/integrations/${inventory.integrationId}`, 204],
      ["DeleteRoute", `/v2/apis/${ORDERS_API}/routes/${inventoryRoute.routeId}`, 204],
    ]);
    expect(service.requests.records({ operation: "DeleteAlternateContact" })[0]!.body).toEqual({ AlternateContactType: "BILLING" });
    expect(await liveContact(service, "BILLING")).toBeNull();
    expect(await liveContact(service, "SECURITY")).not.toBeNull();
    expect((await liveRoutes(service, ORDERS_API)).map((route) => route.routeKey)).not.toContain("GET /inventory/{sku}");
    expect((await liveIntegrations(service, ORDERS_API)).map((integration) => integration.integrationId)).not.toContain(inventory.integrationId);

    // absent and gone: nothing more to do
    service.requests.reset();
    const again = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(again, 0);
    expect(again.stdout).toContain("No changes");
    expect(service.requests.count({ writesOnly: true })).toBe(0);
  });
});
