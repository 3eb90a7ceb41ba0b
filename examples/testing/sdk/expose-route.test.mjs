// exposeRoute (expose-route.mjs) against the services as a test double: in a world of its own, with
// scripted faults, asserting on the request journal what the code sent.
import { describe, expect, it } from "vitest";
import { collect } from "converge/clients";
import { exposeRoute } from "./expose-route.mjs";
import { useIsolatedWorld } from "./world.mjs";

const t = useIsolatedWorld();
const STATUS = { apiName: "orders", routeKey: "GET /status", backend: "https://orders.internal.example/status" };

describe("exposeRoute", () => {
  it("creates the integration and the route once; run again, it writes nothing", async () => {
    const route = await exposeRoute(t.gateway, STATUS);
    expect(route.routeKey).toBe("GET /status");
    await exposeRoute(t.gateway, STATUS);
    const writes = await t.world.requests({ write: true });
    expect(writes.map((request) => [request.operation, request.status])).toEqual([["CreateIntegration", 201], ["CreateRoute", 201]]);
  });

  it("succeeds through a 429: the create is retried once", async () => {
    await t.world.addFault({ operation: "CreateIntegration", calls: { nth: 1 }, effect: { status: 429, retryAfterSeconds: 0 } });
    await exposeRoute(t.gateway, STATUS);
    const creates = await t.world.requests({ operation: "CreateIntegration" });
    expect(creates.map((request) => [request.status, request.fault?.effect ?? null])).toEqual([[429, "error"], [201, null]]);
  });

  it("creates no second route when the answer of the first create is lost", async () => {
    await t.world.addFault({ operation: "CreateRoute", calls: { nth: 1 }, effect: { dropAnswer: true } });
    await exposeRoute(t.gateway, STATUS);
    const routes = (await collect(t.gateway.routes("a1b2c3d4e5"))).filter((route) => route.routeKey === "GET /status");
    expect(routes).toHaveLength(1);
    const creates = await t.world.requests({ operation: "CreateRoute" });
    expect(creates.map((request) => [request.status, request.fault?.effect ?? null])).toEqual([[201, "dropAnswer"]]);
  });

  it("refuses an API that does not exist, and writes nothing", async () => {
    await expect(exposeRoute(t.gateway, { ...STATUS, apiName: "payments" })).rejects.toThrow('there is no API named "payments"');
    expect(await t.world.requests({ write: true })).toEqual([]);
  });
});
