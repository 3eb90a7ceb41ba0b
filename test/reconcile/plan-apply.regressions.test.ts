import { afterEach, describe, expect, test } from "vitest";
import { applyPlan } from "../../src/reconcile/apply.js";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import { createApi, createIntegration, createRoute } from "../support/gateway.js";
import { useWorld } from "../support/world.js";
import { ADMIN_RETRY, describeActions, readApis, reconcileWorld, removeDirectory, replan, writeAndLoad } from "./support/reconcile-harness.js";

/** Every test gets a fresh service and clients; desired-state directories are removed after it. */
const { service, clients } = useWorld({ world: reconcileWorld(), retry: ADMIN_RETRY }, { each: true });
const directories: string[] = [];

afterEach(async () => {
  await Promise.all(directories.splice(0).map(removeDirectory));
});

/**
 * The shrunk counterexamples of plan-apply.property.test.ts, kept as examples: each needed a second
 * apply (or never converged) before its fix.
 */
describe("plan then apply converges in one apply", () => {
  async function applyOnce(yaml: string) {
    const { documents, directory } = await writeAndLoad({ "desired.yaml": yaml });
    directories.push(directory);
    const first = await readAndPlan(documents, clients);
    expect(first.problems).toEqual([]);
    const report = await applyPlan(first.plan, clients);
    expect(report.outcomes.filter((outcome) => outcome.status === "failed")).toEqual([]);
    const after = await replan(documents, clients);
    expect(after.problems).toEqual([]);
    expect(after.pending.length, `a fresh plan still changes:\n${describeActions(after.pending)}`).toBe(0);
    return first.plan;
  }

  // the old integration is let go either by pruning or by ensure: absent
  test.each([
    { how: "pruned", oldIntegration: (_apiId: string) => "", apiSpec: "{prune: true}" },
    { how: "ensure: absent", oldIntegration: (apiId: string) => `---\nkind: Integration\nname: old\napi: ${apiId}\nensure: absent\nspec: {integrationType: MOCK, integrationUri: "https://old.example/"}\n`, apiSpec: "{prune: false}" },
  ])("deletes the integration a route leaves for one this apply creates ($how)", async ({ oldIntegration, apiSpec }) => {
    const { apiId } = await createApi(service, "WEBSOCKET", { name: "retarget" });
    const old = await createIntegration(service, apiId, "WEBSOCKET", { integrationUri: "https://old.example/" });
    await createRoute(service, apiId, { routeKey: "sendMessage", target: `integrations/${old.integrationId}` });

    const plan = await applyOnce(`kind: Integration
name: fresh
api: ${apiId}
spec: {integrationType: MOCK, integrationUri: "https://fresh.example/"}
---
kind: Route
api: ${apiId}
spec: {routeKey: sendMessage, target: {integration: fresh}}
---
kind: Api
api: ${apiId}
spec: ${apiSpec}
${oldIntegration(apiId)}`);

    // planned as a delete in the first plan, not refused as "still the target of route …"
    expect(plan.actions.filter((action) => action.kind === "Integration" && action.name !== "fresh").map((action) => [action.type, action.reason?.split(":")[0]]))
      .toEqual([["delete", expect.stringMatching(/^(pruned|ensure)/)]]);
    const live = (await readApis(clients, [apiId]))[apiId]!;
    expect(live.integrations.map((integration) => integration.integrationUri)).toEqual(["https://fresh.example/"]);
    expect(live.routes.map((route) => [route.routeKey, route.target])).toEqual([["sendMessage", `integrations/${live.integrations[0]!.integrationId}`]]);
  });

  test("never matches an integration pinned by one document to another document's natural key", async () => {
    const { apiId } = await createApi(service, "HTTP", { name: "pins" });
    const pinned = await createIntegration(service, apiId, "HTTP", { integrationUri: "https://shared.example/", description: "live" });

    // the unpinned document comes first in the file: it used to claim the pinned integration, and the two then took turns
    const plan = await applyOnce(`kind: Integration
name: by-natural-key
api: ${apiId}
spec: {integrationType: HTTP_PROXY, integrationUri: "https://shared.example/", integrationMethod: ANY, payloadFormatVersion: "1.0", description: unpinned}
---
kind: Integration
name: by-id
api: ${apiId}
spec: {integrationId: ${pinned.integrationId}, integrationType: HTTP_PROXY, description: pinned}
`);

    expect(plan.actions.map((action) => [action.name, action.type])).toEqual([["by-id", "update"], ["by-natural-key", "create"]]);
    const live = (await readApis(clients, [apiId]))[apiId]!;
    expect(Object.fromEntries(live.integrations.map((integration) => [integration.integrationId === pinned.integrationId ? "pinned" : "created", integration.description])))
      .toEqual({ pinned: "pinned", created: "unpinned" });
  });
});

describe("pins and protocol rules found before any write", () => {
  /**
   * An HTTP API `name` with a route GET /old, and the desired state of two Routes of it: `document`
   * (the rest of a Route document) and the route renamed to GET /new through its pin.
   */
  async function renameThroughPin(name: string, document: string) {
    const { apiId } = await createApi(service, "HTTP", { name });
    const route = await createRoute(service, apiId, { routeKey: "GET /old" });
    const { documents, directory } = await writeAndLoad({ "desired.yaml": `kind: Route\napi: ${apiId}\n${document}\n---\nkind: Route\napi: ${apiId}\nspec: {routeId: ${route.routeId}, routeKey: GET /new}\n` });
    directories.push(directory);
    return { apiId, route, documents };
  }

  test("renames a route through its pin in one apply, while a document for its old key is absent", async () => {
    const { apiId, route, documents } = await renameThroughPin("rename", "ensure: absent\nspec: {routeKey: GET /old}");
    const first = await readAndPlan(documents, clients);
    expect(first.problems).toEqual([]);
    expect(first.plan.actions.map((action) => [action.address.split("/").slice(2).join("/"), action.type])).toEqual([["GET /new", "update"], ["GET /old", "no-op"]]);
    expect((await applyPlan(first.plan, clients)).failed).toBe(0);
    const live = (await readApis(clients, [apiId]))[apiId]!;
    expect(live.routes.map((r) => [r.routeId, r.routeKey])).toEqual([[route.routeId, "GET /new"]]);
    expect((await replan(documents, clients)).pending).toEqual([]);
  });

  test("renames a route through its pin and creates a new route with its old key in one apply", async () => {
    const { apiId, route, documents } = await renameThroughPin("rename-and-reuse", "spec: {routeKey: GET /old, operationName: reused}");
    const first = await readAndPlan(documents, clients);
    expect((await applyPlan(first.plan, clients)).failed).toBe(0);
    const live = (await readApis(clients, [apiId]))[apiId]!;
    expect(Object.fromEntries(live.routes.map((r) => [r.routeKey, r.routeId === route.routeId ? "renamed" : "created"]))).toEqual({ "GET /new": "renamed", "GET /old": "created" });
    expect((await replan(documents, clients)).pending).toEqual([]);
  });

  test("refuses two documents pinning the same integration or route, before any call", async () => {
    const count = service.requests.count();
    await expect(writeAndLoad({ "desired.yaml": `kind: Integration
name: a
api: abcdefghij
spec: {integrationId: abc1234, integrationType: MOCK}
---
kind: Integration
name: b
api: abcdefghij
spec: {integrationId: abc1234, integrationType: MOCK}
---
kind: Route
api: abcdefghij
spec: {routeId: rte1234, routeKey: GET /a}
---
kind: Route
api: abcdefghij
spec: {routeId: rte1234, routeKey: GET /b}
` })).rejects.toThrow(/desired.yaml:9:8: spec.integrationId: integrationId abc1234 is already pinned by the integration at \S*desired.yaml:1\b[\s\S]*desired.yaml:17:8: spec.routeId: routeId rte1234 is already pinned/);
    expect(service.requests.count()).toBe(count);
  });

  test("refuses payloadFormatVersion: null on an HTTP API at plan time, with no write", async () => {
    const { apiId } = await createApi(service, "HTTP", { name: "nullpfv" });
    await createIntegration(service, apiId, "HTTP", { integrationUri: "https://pfv.example/" });
    const { documents, directory } = await writeAndLoad({ "desired.yaml": `kind: Integration
name: pfv
api: ${apiId}
spec: {integrationType: HTTP_PROXY, integrationUri: "https://pfv.example/", payloadFormatVersion: null}
` });
    directories.push(directory);
    const result = await readAndPlan(documents, clients);
    expect(result.problems.map((problem) => `${problem.line}:${problem.path}`)).toEqual(["4:spec.payloadFormatVersion"]);
    expect(result.problems[0]!.message).toMatch(/cannot be absent \(null\) on an HTTP API/);
  });
});
