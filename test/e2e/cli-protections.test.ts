import { describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { call } from "../support/http.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, ORDERS_API, actionLines, converge, createIntegrationOverHttp, createRouteOverHttp, expectExit, liveIntegrations, liveRoute, liveRoutes, parsePlanJson, writeCounts, writeFiles, type LiveIntegration, type LiveRoute, useE2eResources } from "./e2e-fixture.js";

/**
 * Pruning and the protections, end to end: undeclared routes and integrations of an owned API are
 * deleted, but converge refuses (and never sends) deletes of service-managed resources, of an
 * integration a live route still targets, and route-key changes of a managed route. Ambiguous
 * natural keys fail the plan. Each test starts its own service (the demo world's orders API is
 * quick-created: a managed `$default` route targeting a managed integration).
 */

const { services, dirs } = useE2eResources();

const HTTP_BACKEND = { integrationType: "HTTP_PROXY", integrationMethod: "ANY", payloadFormatVersion: "1.0" };

/** The managed pair quick create made. */
async function managedPair(service: RunningService): Promise<{ route: LiveRoute; integration: LiveIntegration }> {
  const route = await liveRoute(service, ORDERS_API, "$default");
  const integrations = (await liveIntegrations(service, ORDERS_API)).filter((integration) => integration.apiGatewayManaged === true);
  expect(route.apiGatewayManaged).toBe(true);
  expect(integrations).toHaveLength(1);
  expect(route.target).toBe(`integrations/${integrations[0]!.integrationId}`);
  return { route, integration: integrations[0]! };
}

/**
 * Live resources nobody declares, made over HTTP: a route (GET /stale) and the integration it targets,
 * an orphan integration, and an integration that a declared route (GET /kept) targets by raw ID.
 */
async function undeclaredResources(service: RunningService) {
  const staleIntegration = await createIntegrationOverHttp(service, ORDERS_API, { ...HTTP_BACKEND, integrationUri: "https://stale.example/one" });
  const staleRoute = await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /stale", target: `integrations/${staleIntegration.integrationId}` });
  const orphan = await createIntegrationOverHttp(service, ORDERS_API, { ...HTTP_BACKEND, integrationUri: "https://orphan.example/three" });
  const keptTarget = await createIntegrationOverHttp(service, ORDERS_API, { ...HTTP_BACKEND, integrationUri: "https://kept.example/two" });
  const keptRoute = await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /kept", target: `integrations/${keptTarget.integrationId}` });
  return { staleIntegration, staleRoute, orphan, keptTarget, keptRoute };
}

/** An estate owning the orders API: one integration and two routes (GET /kept by raw target). */
function ownedEstate(apiSpec: string, keptTargetId: string): Record<string, string> {
  return {
    "orders.yaml": [
      "kind: Api",
      "api: a1b2c3d4e5",
      `spec: ${apiSpec}`,
      "---",
      "kind: Integration",
      "name: backend",
      "api: a1b2c3d4e5",
      'spec: {integrationType: HTTP_PROXY, integrationUri: "https://backend.example/orders", integrationMethod: ANY, payloadFormatVersion: "1.0"}',
      "---",
      "kind: Route",
      "api: a1b2c3d4e5",
      "spec: {routeKey: GET /orders, target: {integration: backend}}",
      "---",
      "kind: Route",
      "api: a1b2c3d4e5",
      `spec: {routeKey: GET /kept, target: integrations/${keptTargetId}}`,
      "",
    ].join("\n"),
  };
}

describe.concurrent("pruning an API declared owned", { timeout: E2E_TIMEOUT_MS }, () => {
  it.each([
    { how: "spec.prune: true in the Api document", apiSpec: "{prune: true, protocolType: HTTP}", flags: [] as string[] },
    { how: "--prune with an Api document that does not say prune", apiSpec: "{protocolType: HTTP}", flags: ["--prune"] },
  ])("deletes undeclared routes and integrations but refuses managed and still-targeted integrations ($how)", async ({ apiSpec, flags }) => {
    const service = await services.start();
    const managed = await managedPair(service);
    const live = await undeclaredResources(service);
    const dir = await dirs.make("prune");
    await writeFiles(dir, ownedEstate(apiSpec, live.keptTarget.integrationId));

    service.requests.reset();
    const planned = await converge(service, ["plan", "-f", ".", "--output", "json", ...flags], dir);
    expectExit(planned, 2);
    expect(service.requests.count({ writesOnly: true })).toBe(0);
    const plan = parsePlanJson(planned);
    expect(actionLines(plan)).toEqual([
      `create Integration/${ORDERS_API}/backend`,
      `create Route/${ORDERS_API}/GET /orders`,
      `delete Integration/${ORDERS_API}/${live.orphan.integrationId}`,
      `delete Integration/${ORDERS_API}/${live.staleIntegration.integrationId}`,
      `delete Route/${ORDERS_API}/GET /stale`,
      `refused Integration/${ORDERS_API}/${live.keptTarget.integrationId}`,
      `refused Integration/${ORDERS_API}/${managed.integration.integrationId}`,
      `refused Route/${ORDERS_API}/$default`,
    ].sort());
    const reasonOf = (address: string) => plan.actions.find((action) => action.address === address)?.reason;
    expect(reasonOf(`Integration/${ORDERS_API}/${managed.integration.integrationId}`)).toMatch(/managed by the service.*never deleted/);
    expect(reasonOf(`Integration/${ORDERS_API}/${live.keptTarget.integrationId}`)).toContain(`still the target of route ${live.keptRoute.routeId}`);
    expect(reasonOf(`Route/${ORDERS_API}/$default`)).toMatch(/managed by the service.*never deletes it/);
    expect(reasonOf(`Route/${ORDERS_API}/GET /stale`)).toMatch(/^pruned: /);
    expect(plan.summary).toEqual({ create: 2, update: 0, delete: 3, noop: 1, refused: 3 });

    // the text plan says the same, with the reasons
    const text = await converge(service, ["plan", "-f", ".", ...flags], dir);
    expectExit(text, 2);
    expect(text.stdout).toContain(`# Integration/${ORDERS_API}/${managed.integration.integrationId} is refused`);
    expect(text.stdout).toContain(`# Integration/${ORDERS_API}/${live.keptTarget.integrationId} is refused`);
    expect(text.stdout).toContain(`still the target of route ${live.keptRoute.routeId}`);
    expect(text.stdout).toContain("Plan: 2 to create, 0 to update, 3 to delete, 3 refused, 1 unchanged.");

    service.requests.reset();
    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve", ...flags], dir);
    expectExit(applied, 0);
    expect(writeCounts(service)).toEqual({ CreateIntegration: 1, CreateRoute: 1, DeleteRoute: 1, DeleteIntegration: 2 });
    expect(service.requests.records({ operation: "DeleteIntegration" }).map((record) => [record.path, record.status]).sort()).toEqual([
      [`/v2/apis/${ORDERS_API}/integrations/${live.orphan.integrationId}`, 204],
      [`/v2/apis/${ORDERS_API}/integrations/${live.staleIntegration.integrationId}`, 204],
    ].sort());
    expect(service.requests.records({ operation: "DeleteRoute" }).map((record) => record.path)).toEqual([`/v2/apis/${ORDERS_API}/routes/${live.staleRoute.routeId}`]);

    const remaining = (await liveIntegrations(service, ORDERS_API)).map((integration) => integration.integrationId);
    expect(remaining).toContain(managed.integration.integrationId);
    expect(remaining).toContain(live.keptTarget.integrationId);
    expect(remaining).not.toContain(live.orphan.integrationId);
    expect((await liveRoutes(service, ORDERS_API)).map((route) => route.routeKey).sort()).toEqual(["$default", "GET /kept", "GET /orders"]);
  });

  it("leaves undeclared routes and integrations alone without prune: true or --prune", async () => {
    const service = await services.start();
    const live = await undeclaredResources(service);
    const dir = await dirs.make("noprune");
    await writeFiles(dir, ownedEstate("{protocolType: HTTP}", live.keptTarget.integrationId));

    const planned = await converge(service, ["plan", "-f", ".", "--output", "json"], dir);
    expectExit(planned, 2);
    expect(actionLines(parsePlanJson(planned))).toEqual([`create Integration/${ORDERS_API}/backend`, `create Route/${ORDERS_API}/GET /orders`]);
    service.requests.reset();
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expect(writeCounts(service)).toEqual({ CreateIntegration: 1, CreateRoute: 1 });
  });

  it("refuses to delete an undeclared integration that the managed $default route (which it never deletes) targets", async () => {
    const service = await services.start();
    const managed = await managedPair(service);
    const retargeted = await createIntegrationOverHttp(service, ORDERS_API, { ...HTTP_BACKEND, integrationUri: "https://new-default.example/x" });
    const patched = await call(service, `/v2/apis/${ORDERS_API}/routes/${managed.route.routeId}`, { method: "PATCH", body: { target: `integrations/${retargeted.integrationId}` }, token: ADMIN_TOKEN });
    expect(patched.status, patched.text).toBe(200);
    const dir = await dirs.make("prune-default");
    await writeFiles(dir, { "orders.yaml": "kind: Api\napi: a1b2c3d4e5\nspec: {prune: true}\n" });

    const planned = await converge(service, ["plan", "-f", ".", "--output", "json"], dir);
    expectExit(planned, 0);
    const plan = parsePlanJson(planned);
    expect(actionLines(plan)).toEqual([
      `refused Integration/${ORDERS_API}/${managed.integration.integrationId}`,
      `refused Integration/${ORDERS_API}/${retargeted.integrationId}`,
      `refused Route/${ORDERS_API}/$default`,
    ].sort());
    expect(plan.actions.find((action) => action.address === `Integration/${ORDERS_API}/${retargeted.integrationId}`)?.reason).toContain(`still the target of route ${managed.route.routeId}`);

    service.requests.reset();
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expect(service.requests.count({ writesOnly: true })).toBe(0);
  });
});

describe.concurrent("managed routes", { timeout: E2E_TIMEOUT_MS }, () => {
  it("refuses to change the route key of the managed $default route pinned by routeId, and sends no UpdateRoute", async () => {
    const service = await services.start();
    const managed = await managedPair(service);
    const dir = await dirs.make("managed-key");
    await writeFiles(dir, {
      "routes.yaml": [
        "kind: Route",
        "api: a1b2c3d4e5",
        `spec: {routeId: ${managed.route.routeId}, routeKey: GET /renamed}`,
        "---",
        "kind: Route",
        "api: a1b2c3d4e5",
        "spec: {routeKey: GET /other, target: " + managed.route.target + "}",
        "",
      ].join("\n"),
    });

    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 2); // GET /other is a change; the refusal alone would not be
    expect(planned.stdout).toContain(`# Route/${ORDERS_API}/GET /renamed is refused  (routes.yaml:1)`);
    expect(planned.stdout).toContain(`route ${managed.route.routeId} is managed by the service (quick create): converge never changes its route key "$default"`);
    expect(planned.stdout).toContain("Plan: 1 to create, 0 to update, 0 to delete, 1 refused, 0 unchanged.");

    const json = parsePlanJson(await converge(service, ["plan", "-f", ".", "--output", "json"], dir));
    const refused = json.actions.find((action) => action.type === "refused");
    expect(refused).toMatchObject({ address: `Route/${ORDERS_API}/GET /renamed`, kind: "Route", changes: [{ path: "routeKey", before: "$default", after: "GET /renamed" }] });
    expect(refused).not.toHaveProperty("request");

    service.requests.reset();
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expect(service.requests.count({ operation: "UpdateRoute" })).toBe(0);
    expect(writeCounts(service)).toEqual({ CreateRoute: 1 });
    expect((await liveRoute(service, ORDERS_API, "$default")).routeId).toBe(managed.route.routeId);

    // refused alone: nothing to change, exit 0 (README: refusals do not change the exit code)
    await writeFiles(dir, { "routes.yaml": `kind: Route\napi: a1b2c3d4e5\nspec: {routeId: ${managed.route.routeId}, routeKey: GET /renamed}\n` });
    const refusedOnly = await converge(service, ["plan", "-f", "."], dir);
    expectExit(refusedOnly, 0);
    expect(refusedOnly.stdout).toContain("Plan: 0 to create, 0 to update, 0 to delete, 1 refused, 0 unchanged.");
  });
});

describe.concurrent("integration identity", { timeout: E2E_TIMEOUT_MS }, () => {
  const duplicate = { ...HTTP_BACKEND, integrationType: "HTTP_PROXY", integrationUri: "https://twin.example/api", integrationMethod: "GET" };
  const document = (...pin: string[]) => [
    "kind: Integration",
    "name: twin",
    "api: a1b2c3d4e5",
    "spec:",
    ...pin,
    "  integrationType: HTTP_PROXY",
    "  integrationUri: https://twin.example/api",
    "  integrationMethod: GET",
    '  payloadFormatVersion: "1.0"',
    "  description: the one we mean",
    "",
  ].join("\n");

  it("fails the plan on an ambiguous natural key, listing both candidates, and works once integrationId is pinned", async () => {
    const service = await services.start();
    const first = await createIntegrationOverHttp(service, ORDERS_API, duplicate);
    const second = await createIntegrationOverHttp(service, ORDERS_API, duplicate);
    const dir = await dirs.make("ambiguous");
    await writeFiles(dir, { "twin.yaml": document() });

    service.requests.reset();
    const planned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(planned, 1);
    expect(planned.stdout).toBe("");
    expect(planned.stderr).toContain("twin.yaml:4:1: spec: integration \"twin\" matches 2 live integrations");
    expect(planned.stderr).toContain("matches 2 live integrations");
    expect(planned.stderr).toContain(first.integrationId);
    expect(planned.stderr).toContain(second.integrationId);
    expect(planned.stderr).toContain("Pin the one you mean with spec.integrationId");
    const applied = await converge(service, ["apply", "-f", ".", "--auto-approve"], dir);
    expectExit(applied, 1);
    expect(applied.stderr).toContain(second.integrationId);
    expect(service.requests.count({ writesOnly: true })).toBe(0);

    await writeFiles(dir, { "twin.yaml": document(`  integrationId: ${second.integrationId}`) });
    const pinned = await converge(service, ["plan", "-f", "."], dir);
    expectExit(pinned, 2);
    expect(pinned.stdout).toContain(`# Integration/${ORDERS_API}/twin will be updated in place`);
    expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
    expect(service.requests.records({ operation: "UpdateIntegration" }).map((record) => [record.path, record.body])).toEqual([
      [`/v2/apis/${ORDERS_API}/integrations/${second.integrationId}`, { description: "the one we mean" }],
    ]);
    expect(writeCounts(service)).toEqual({ UpdateIntegration: 1 });
  });
});
