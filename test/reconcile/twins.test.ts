import { afterAll, describe, expect, it } from "vitest";
import { collect } from "../../src/clients/index.js";
import { applyPlan } from "../../src/reconcile/apply.js";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import type { Integration } from "../../src/contract/gateway.js";
import { useWorld } from "../support/world.js";
import { ADMIN_RETRY, reconcileWorld, removeDirectory, writeAndLoad } from "./support/reconcile-harness.js";

/**
 * Twin integrations (src/reconcile/twins.ts), against the embedded service: planning repairs
 * identical twins of a declared integration in a pruned API or with repairTwins (keeping the first
 * in listing order, retargeting routes, deleting the others, touching nothing else), refuses any
 * other set of matches as ambiguous, and an apply that finds a twin created before its own create
 * adopts it and deletes its own.
 */

const BODY = { integrationType: "HTTP_PROXY", integrationUri: "https://twin.example/api", integrationMethod: "ANY", payloadFormatVersion: "1.0", description: "orders" } as const;
const DOCUMENT = `kind: Integration\nname: backend\napi: API\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://twin.example/api", integrationMethod: ANY}`;
const DECLARED_ROUTE = "kind: Route\napi: API\nspec: {routeKey: GET /declared, target: {integration: backend}}";

const { service, clients } = useWorld({ world: reconcileWorld(), recordRequests: true, retry: ADMIN_RETRY });
const directories: string[] = [];

afterAll(async () => {
  await Promise.all(directories.map(removeDirectory));
});

/**
 * A fresh API holding three identical twins (created in this order), a route declared by a
 * document targeting the second, an undeclared route targeting the third, and an unrelated
 * integration with its own route.
 */
async function apiWithTwins() {
  const { apiId } = await clients.gateway.createApi({ name: "twins", protocolType: "HTTP" });
  const twins: Integration[] = [];
  for (let i = 0; i < 3; i += 1) twins.push(await clients.gateway.createIntegration(apiId, BODY));
  const other = await clients.gateway.createIntegration(apiId, { ...BODY, integrationUri: "https://other.example/api" });
  await clients.gateway.createRoute(apiId, { routeKey: "GET /declared", target: `integrations/${twins[1]!.integrationId}` });
  const undeclared = await clients.gateway.createRoute(apiId, { routeKey: "GET /undeclared", target: `integrations/${twins[2]!.integrationId}` });
  const unrelated = await clients.gateway.createRoute(apiId, { routeKey: "GET /other", target: `integrations/${other.integrationId}` });
  return { apiId, twins, other, undeclared, unrelated };
}

async function load(apiId: string, ...documents: string[]) {
  const loaded = await writeAndLoad({ "estate.yaml": documents.join("\n---\n").replaceAll("API", apiId) });
  directories.push(loaded.directory);
  return loaded.documents;
}

const targets = async (apiId: string) => Object.fromEntries((await collect(clients.gateway.routes(apiId))).map((route) => [route.routeKey, route.target]));
const integrationIds = async (apiId: string) => (await collect(clients.gateway.integrations(apiId))).map((integration) => integration.integrationId);

describe("planning identical twins", () => {
  it("refuses them as ambiguous in an API it does not prune, saying how they are repaired", async () => {
    const { apiId, twins } = await apiWithTwins();
    const { problems } = await readAndPlan(await load(apiId, DOCUMENT, DECLARED_ROUTE), clients);
    expect(problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(new RegExp(`^integration "backend" matches 3 live integrations of API ${apiId} by its natural key .*Pin the one you mean with spec\\.integrationId \\(they are identical twins, equal in every field but integrationId: converge apply repairs them, keeping the first, ${twins[0]!.integrationId}, in an API a kind: Api document prunes, or with --repair-twins\\)$`)),
    ]);
  });

  it("with repairTwins keeps the first, retargets every route to it, deletes the others, and touches nothing else", async () => {
    const { apiId, twins, other, undeclared, unrelated } = await apiWithTwins();
    const documents = await load(apiId, DOCUMENT, DECLARED_ROUTE);
    const { plan, problems } = await readAndPlan(documents, clients, { repairTwins: true });
    expect(problems).toEqual([]);
    expect(plan.repairTwins).toBe(true);
    const [first, second, third] = twins.map((twin) => twin.integrationId) as [string, string, string];
    expect(plan.actions.filter((action) => action.type !== "no-op").map((action) => [action.type, action.address, action.reason ?? null])).toEqual([
      ["update", `Route/${apiId}/GET /declared`, null],
      ["update", `Route/${apiId}/GET /undeclared`, `retargeted from ${third} to its identical twin ${first}, which "backend" keeps (--repair-twins)`],
      ["delete", `Integration/${apiId}/${second}`, `identical twin of ${first}, which "backend" keeps (--repair-twins)`],
      ["delete", `Integration/${apiId}/${third}`, `identical twin of ${first}, which "backend" keeps (--repair-twins)`],
    ]);

    service.requests.reset();
    const report = await applyPlan(plan, clients);
    expect(report.failed).toBe(0);
    expect(await integrationIds(apiId)).toEqual([first, other.integrationId]);
    expect(await targets(apiId)).toEqual({ "GET /declared": `integrations/${first}`, "GET /undeclared": `integrations/${first}`, "GET /other": `integrations/${other.integrationId}` });
    const declared = (await collect(clients.gateway.routes(apiId))).find((route) => route.routeKey === "GET /declared")!;
    const written = service.requests.records().filter((record) => record.write).map((record) => `${record.operation} ${record.path}`).sort();
    expect(written).toEqual([
      `DeleteIntegration /v2/apis/${apiId}/integrations/${second}`,
      `DeleteIntegration /v2/apis/${apiId}/integrations/${third}`,
      `UpdateRoute /v2/apis/${apiId}/routes/${declared.routeId}`,
      `UpdateRoute /v2/apis/${apiId}/routes/${undeclared.routeId}`,
    ].sort());
    expect(written.join("\n")).not.toContain(unrelated.routeId);
    expect(written.join("\n")).not.toContain(other.integrationId);
    const again = await readAndPlan(documents, clients);
    expect(again.problems).toEqual([]);
    expect(again.plan.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  });

  it("in a pruned API keeps the first and deletes the others, undeclared routes pruned", async () => {
    const { apiId, twins } = await apiWithTwins();
    const documents = await load(apiId, `kind: Api\napi: ${apiId}\nspec: {prune: true}`, DOCUMENT, DECLARED_ROUTE);
    const { plan, problems } = await readAndPlan(documents, clients);
    expect(problems).toEqual([]);
    const [first, second, third] = twins.map((twin) => twin.integrationId) as [string, string, string];
    const twinDeletes = plan.actions.filter((action) => action.reason?.startsWith("identical twin")).map((action) => [action.address, action.reason]);
    expect(twinDeletes).toEqual([second, third].map((id) => [`Integration/${apiId}/${id}`, `identical twin of ${first}, which "backend" keeps (API ${apiId} is pruned)`]));
    expect((await applyPlan(plan, clients)).failed).toBe(0);
    expect(await integrationIds(apiId)).toEqual([first]);
    expect(await targets(apiId)).toEqual({ "GET /declared": `integrations/${first}` });
    const again = await readAndPlan(documents, clients);
    expect([again.problems, again.plan.summary]).toMatchObject([[], { create: 0, update: 0, delete: 0 }]);
  });

  it.each([
    ["a field differs (description)", { ...BODY, description: "another" }, "description"],
    ["a field is set on one only (timeoutInMillis)", { ...BODY, timeoutInMillis: 5000 }, "timeoutInMillis"],
  ])("refuses matches that are not identical twins, even where repair is allowed: %s", async (_case, body, field) => {
    const { apiId } = await clients.gateway.createApi({ name: "near-twins", protocolType: "HTTP" });
    const first = await clients.gateway.createIntegration(apiId, BODY);
    const second = await clients.gateway.createIntegration(apiId, body);
    for (const [documents, options] of [[[`kind: Api\napi: ${apiId}\nspec: {prune: true}`, DOCUMENT], {}], [[DOCUMENT], { repairTwins: true }]] as const) {
      const { problems } = await readAndPlan(await load(apiId, ...documents), clients, options);
      expect(problems.map((problem) => problem.message)).toEqual([
        expect.stringContaining(`matches 2 live integrations of API ${apiId}`),
      ]);
      expect(problems[0]!.message).toContain(`(they are not identical twins: ${second.integrationId} differs from ${first.integrationId} in ${field})`);
    }
  });
});

describe("applying next to a twin created by another run", () => {
  it("adopts the twin created before its own create, deletes its own, and routes target the kept one", async () => {
    const { apiId } = await clients.gateway.createApi({ name: "late", protocolType: "HTTP" });
    const documents = await load(apiId, DOCUMENT.replace("integrationMethod: ANY}", 'integrationMethod: ANY, payloadFormatVersion: "1.0", description: orders}'), DECLARED_ROUTE);
    const { plan } = await readAndPlan(documents, clients);
    expect(plan.summary).toMatchObject({ create: 2 });
    // another run's create lands after this run read live state and before its own create
    const theirs = await clients.gateway.createIntegration(apiId, BODY);

    service.requests.reset();
    const report = await applyPlan(plan, clients);
    expect(report.failed).toBe(0);
    const created = service.requests.records({ operation: "CreateIntegration" });
    expect(created).toHaveLength(1);
    expect(await integrationIds(apiId)).toEqual([theirs.integrationId]);
    expect(service.requests.records({ operation: "DeleteIntegration" })).toHaveLength(1);
    expect(service.requests.records({ operation: "DeleteIntegration" })[0]!.path).not.toContain(theirs.integrationId);
    expect(await targets(apiId)).toEqual({ "GET /declared": `integrations/${theirs.integrationId}` });
  });
});
