// Test files run in parallel, each in a world of its own: this one writes the same route as
// expose-route.test.mjs, at the same time, and neither sees the other's.
import { describe, expect, it } from "vitest";
import { collect } from "converge/clients";
import { exposeRoute } from "./expose-route.mjs";
import { useIsolatedWorld } from "./world.mjs";

const t = useIsolatedWorld();

describe("a world of the file's own", () => {
  it("holds only what this file wrote", async () => {
    for (let i = 0; i < 5; i += 1) {
      await exposeRoute(t.gateway, { apiName: "orders", routeKey: "GET /status", backend: `https://elsewhere.example/status-${i}` });
    }
    const routes = (await collect(t.gateway.routes("a1b2c3d4e5"))).filter((route) => route.routeKey === "GET /status");
    expect(routes).toHaveLength(1);
    const integrations = await collect(t.gateway.integrations("a1b2c3d4e5"));
    expect(integrations.map((integration) => integration.integrationUri).filter((uri) => uri.includes("/status")).sort())
      .toEqual([0, 1, 2, 3, 4].map((i) => `https://elsewhere.example/status-${i}`));
    expect((await t.world.requests()).every((request) => request.world === t.world.id)).toBe(true);
  });
});
