import { rm, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import { loadDesiredState } from "../../src/desired/load.js";
import { API_ID, FILES, startHarness, type Harness } from "./support/reconciler-harness.js";

/**
 * The continuous reconciler's cycles, stepped one at a time (Reconciler.cycleNow) against the
 * embedded service on port 0 and real files: corrections, policies, guards, fights, protections,
 * and the reads a cycle makes. The loop's timing and the process are tested apart
 * (reconciler-loop.test.ts, test/e2e/cli-reconcile.test.ts).
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(files: Readonly<Record<string, string>> = { "api.yaml": FILES.api, "routes.yaml": FILES.routes, "contact.yaml": FILES.contact }): Promise<Harness> {
  harness = await startHarness(files);
  return harness;
}

function writesMade(h: Harness): number {
  return h.world.service.requests.count({ writesOnly: true });
}

async function routeByKey(h: Harness, routeKey: string) {
  return (await h.live()).routes.find((route) => route.routeKey === routeKey);
}

describe("a cycle", () => {
  it("creates what is missing, then corrects a change made by hand in the next cycle, naming the fields", async () => {
    const h = await start();
    const reconciler = h.reconciler();
    const first = await reconciler.cycleNow();
    expect(first.result).toBe("success");
    expect(first.summary.corrected).toBe(4);
    const route = (await routeByKey(h, "GET /orders"))!;
    await h.world.clients.gateway.updateRoute(API_ID, route.routeId, { authorizationScopes: ["orders.read", "orders.admin"] });

    const second = await reconciler.cycleNow();
    expect(second.result).toBe("success");
    const corrected = second.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)!;
    expect(corrected).toMatchObject({ outcome: "drifted", state: "corrected", fields: [{ path: "authorizationScopes", desired: ["orders.read"], live: ["orders.read", "orders.admin"] }] });
    expect(second.writes).toEqual([expect.objectContaining({ address: `Route/${API_ID}/GET /orders`, type: "update", status: "done" })]);
    expect((await routeByKey(h, "GET /orders"))!.authorizationScopes).toEqual(["orders.read"]);
    expect(h.logged.some((line) => line.includes(`update Route/${API_ID}/GET /orders: authorizationScopes ["orders.read","orders.admin"] -> ["orders.read"]: done`))).toBe(true);

    const third = await reconciler.cycleNow();
    expect(third.writes).toEqual([]);
    expect(third.result).toBe("success");
    // the API's service-managed $default route and integration, which its pruning may never delete
    expect(third.summary).toMatchObject({ "in-sync": 5, refused: 2, drifted: 0, missing: 0, unmanaged: 0 });
  });

  it("reports drift and writes nothing under --policy observe", async () => {
    const h = await start();
    await h.reconciler().cycleNow();
    const route = (await routeByKey(h, "GET /orders"))!;
    await h.world.clients.gateway.updateRoute(API_ID, route.routeId, { authorizationScopes: ["orders.admin"] });
    const before = writesMade(h);

    const observed = await h.reconciler({ policy: "observe" }).cycleNow();
    expect(observed.result).toBe("drift");
    expect(observed.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)).toMatchObject({
      state: "drifted",
      withheld: { guard: "policy", reason: "observed, not corrected: --policy observe" },
    });
    expect(writesMade(h)).toBe(before);
    expect((await routeByKey(h, "GET /orders"))!.authorizationScopes).toEqual(["orders.admin"]);
  });

  it("observes a document that says policy: observe, and corrects the others", async () => {
    const h = await start({ "routes.yaml": FILES.routes, "contact.yaml": FILES.contact.replace("kind: AlternateContact\n", "kind: AlternateContact\npolicy: observe\n") });
    const first = await h.reconciler().cycleNow();
    expect(first.resources.find((resource) => resource.kind === "AlternateContact")).toMatchObject({
      state: "missing",
      withheld: { guard: "policy", reason: expect.stringContaining("contact.yaml:1) says policy: observe") },
    });
    expect(first.writes.map((write) => write.kind).sort()).toEqual(["Integration", "Route", "Route"]);
    expect(first.result).toBe("drift");
  });
});

describe("the desired state's guards", () => {
  it("keeps the last good desired state in force and writes nothing while a file does not parse, naming the file", async () => {
    const h = await start();
    const reconciler = h.reconciler();
    await reconciler.cycleNow();
    const route = (await routeByKey(h, "GET /orders"))!;
    await h.world.clients.gateway.updateRoute(API_ID, route.routeId, { authorizationScopes: ["orders.admin"] });
    await h.write("routes.yaml", `${FILES.routes}---\nkind: Route\napi: ${API_ID}\nspec: {routeKey: [unclosed\n`);
    const before = writesMade(h);

    const broken = await reconciler.cycleNow();
    expect(broken.result).toBe("refused");
    expect(broken.guard).toMatchObject({ guard: "desired-state" });
    expect(broken.desiredState).toMatchObject({ loaded: false, inForceSince: 1, documents: 5 });
    expect(broken.desiredState.problems[0]).toMatchObject({ file: expect.stringContaining("routes.yaml") });
    expect(broken.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)).toMatchObject({ state: "drifted", withheld: { guard: "desired-state" } });
    expect(writesMade(h)).toBe(before);

    await h.write("routes.yaml", FILES.routes);
    const mended = await reconciler.cycleNow();
    expect(mended.result).toBe("success");
    expect(mended.writes.map((write) => write.address)).toEqual([`Route/${API_ID}/GET /orders`]);
  });

  it("refuses a desired state that shrank by more than half, until --allow-shrink", async () => {
    const h = await start();
    await h.reconciler().cycleNow();
    await h.write("routes.yaml", "");
    await h.remove("api.yaml");
    const reconciler = h.reconciler();
    await reconciler.cycleNow();
    expect((await reconciler.cycleNow()).result).toBe("success");

    const guarded = h.reconciler();
    await h.write("routes.yaml", FILES.routes);
    await h.write("api.yaml", FILES.api);
    expect((await guarded.cycleNow()).desiredState.documents).toBe(5);
    await h.write("routes.yaml", "");
    await h.remove("api.yaml");
    const shrunk = await guarded.cycleNow();
    expect(shrunk).toMatchObject({ result: "refused", guard: { guard: "shrink" }, desiredState: { loaded: false, documents: 5 } });
    expect(shrunk.guard!.message).toContain("shrank from 5 to 1 documents");

    const allowed = h.reconciler({ allowShrink: true });
    await h.write("routes.yaml", FILES.routes);
    await h.write("api.yaml", FILES.api);
    await allowed.cycleNow();
    await h.write("routes.yaml", "");
    await h.remove("api.yaml");
    expect((await allowed.cycleNow()).guard).toBeUndefined();
  });

  it("deletes nothing for a checkout caught half-synced, and deletes a route removed on purpose a cycle later", async () => {
    const h = await start({ "routes.yaml": FILES.routes, "contact.yaml": FILES.contact });
    const reconciler = h.reconciler();
    await reconciler.cycleNow();
    await reconciler.cycleNow();
    const routesBefore = (await h.live()).routes.length;
    expect(routesBefore).toBe(3);

    // a git pull caught after apis.yaml (prune: true) arrived and before routes.yaml was rewritten
    await h.write("api.yaml", FILES.api);
    await h.write("routes.yaml", "");
    const halfSynced = await reconciler.cycleNow();
    expect(halfSynced.writes).toEqual([]);
    expect(halfSynced.resources.filter((resource) => resource.withheld?.guard === "settling").map((resource) => resource.address).sort())
      .toEqual([`Integration/${API_ID}/${(await h.live()).integrations.find((i) => !i.apiGatewayManaged)!.integrationId}`, `Route/${API_ID}/GET /orders`, `Route/${API_ID}/POST /orders`].sort());
    await h.write("routes.yaml", FILES.routes);
    const synced = await reconciler.cycleNow();
    expect(synced.writes).toEqual([]);
    expect((await h.live()).routes.length).toBe(routesBefore);
    expect(h.world.service.requests.count({ operation: "DeleteRoute" })).toBe(0);

    await h.write("routes.yaml", FILES.routes.split("---\n").slice(0, 2).join("---\n"));
    const removed = await reconciler.cycleNow();
    expect(removed.writes).toEqual([]);
    expect(removed.resources.find((resource) => resource.address === `Route/${API_ID}/POST /orders`)).toMatchObject({ state: "unmanaged", withheld: { guard: "settling" } });
    const settled = await reconciler.cycleNow();
    expect(settled.writes).toEqual([expect.objectContaining({ address: `Route/${API_ID}/POST /orders`, type: "delete", status: "done" })]);
    expect((await h.live()).routes.map((route) => route.routeKey).sort()).toEqual(["$default", "GET /orders"]);
  });

  it("makes no write of a cycle that plans more writes than --max-changes", async () => {
    const h = await start();
    const limited = await h.reconciler({ maxChanges: 2 }).cycleNow();
    expect(limited).toMatchObject({ result: "refused", guard: { guard: "change-budget", message: expect.stringContaining("plans 4 writes, more than --max-changes 2") } });
    expect(limited.writes).toEqual([]);
    expect(writesMade(h)).toBe(0);
    expect(limited.findings).toContainEqual(expect.objectContaining({ guard: "change-budget", new: true }));
    expect((await h.reconciler({ maxChanges: 4 }).cycleNow()).result).toBe("success");
  });
});

describe("fights and refusals", () => {
  it("stops correcting a field something keeps changing back after the set number of corrections, and says which", async () => {
    const h = await start({ "routes.yaml": FILES.routes });
    const reconciler = h.reconciler({ fight: { corrections: 3, cycles: 10 } });
    await reconciler.cycleNow();
    const route = (await routeByKey(h, "GET /orders"))!;
    const states: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      await h.world.clients.gateway.updateRoute(API_ID, route.routeId, { authorizationScopes: ["orders.other"] });
      const record = await reconciler.cycleNow();
      states.push(record.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)!.state);
    }
    expect(states).toEqual(["corrected", "corrected", "corrected", "fighting", "fighting"]);
    const last = reconciler.cycleNow();
    const fighting = (await last).resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)!;
    expect(fighting.withheld).toMatchObject({ guard: "fighting", reason: expect.stringContaining("corrected 3 times within 10 cycles and changed back each time (authorizationScopes)") });
    expect(h.world.service.requests.count({ operation: "UpdateRoute", status: 200 })).toBe(5 + 3);
    expect(h.logged.filter((line) => line.includes("(fighting)"))).toHaveLength(1);

    // a change of its document ends the fight
    await h.write("routes.yaml", FILES.routes.replace("[orders.read]", "[orders.read, orders.list]"));
    const changed = await reconciler.cycleNow();
    expect(changed.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)!.state).toBe("corrected");
  });

  it("reports a protection's refusal once per change of live state, never as a write", async () => {
    const h = await start();
    const managed = (await h.live()).routes.find((route) => route.apiGatewayManaged)!;
    await h.write("managed.yaml", `kind: Route\napi: ${API_ID}\nspec: {routeId: ${managed.routeId}, routeKey: GET /renamed}\n`);
    const reconciler = h.reconciler();
    const first = await reconciler.cycleNow();
    const second = await reconciler.cycleNow();
    const refusals = (record: typeof first) => record.findings.filter((finding) => finding.guard === "protection");
    expect(refusals(first)).toContainEqual(expect.objectContaining({ address: `Route/${API_ID}/GET /renamed`, new: true, message: expect.stringContaining("managed") }));
    expect(refusals(second).length).toBe(refusals(first).length);
    expect(refusals(second).every((finding) => !finding.new)).toBe(true);
    expect(second.resources.find((resource) => resource.address === `Route/${API_ID}/GET /renamed`)).toMatchObject({ state: "refused", withheld: { guard: "protection" } });
    expect(h.world.service.requests.count({ operation: "UpdateRoute" })).toBe(0);
    expect(Number((await h.metrics.text()).match(/converge_guard_refusals_total\{guard="protection"\} (\d+)/)?.[1])).toBe(refusals(first).length);
  });
});

describe("with terraform states (--state)", () => {
  it("never prunes what a state manages, and prunes what nothing declares", async () => {
    const h = await start({ "api.yaml": FILES.api, "routes.yaml": FILES.routes });
    const managed = await h.world.clients.gateway.createRoute(API_ID, { routeKey: "GET /terraform" });
    const stray = await h.world.clients.gateway.createRoute(API_ID, { routeKey: "GET /stray" });
    const state = {
      version: 4, terraform_version: "1.11.4", serial: 1, lineage: "reconciler", outputs: {},
      resources: [{
        mode: "managed", type: "converge_route", name: "terraform", provider: 'provider["registry.terraform.io/converge/converge"]',
        instances: [{ schema_version: 0, attributes: { id: `${API_ID}/${managed.routeId}`, api_id: API_ID, route_id: managed.routeId, api_gateway_managed: false, route_key: "GET /terraform" } }],
      }],
    };
    const stateFile = `${h.directory}.tfstate`;
    await writeFile(stateFile, JSON.stringify(state));
    const reconciler = h.reconciler({}, undefined, [stateFile]);
    await reconciler.cycleNow();
    const second = await reconciler.cycleNow();
    expect(second.writes).toEqual([expect.objectContaining({ address: `Route/${API_ID}/GET /stray`, type: "delete", status: "done" })]);
    const keys = (await h.live()).routes.map((route) => route.routeKey).sort();
    expect(keys).toEqual(["$default", "GET /orders", "GET /terraform", "POST /orders"]);
    expect(stray.routeId).not.toBe(managed.routeId);
    expect(second.resources.find((resource) => resource.address === `Route/${API_ID}/GET /terraform`)).toMatchObject({ state: "in-sync", source: { address: "converge_route.terraform" } });
    await rm(stateFile);
  });
});

describe("what a cycle costs", () => {
  it("makes the reads of one plan when nothing differs, and parses no unchanged file again", async () => {
    const h = await start();
    const reconciler = h.reconciler();
    await reconciler.cycleNow();
    const before = h.world.service.requests.count();
    const quiet = await reconciler.cycleNow();
    const cycleReads = h.world.service.requests.count() - before;
    expect(quiet.writes).toEqual([]);
    expect(quiet.requests).toBe(cycleReads);

    const documents = (await loadDesiredState([h.directory])).documents;
    const planBefore = h.world.service.requests.count();
    await readAndPlan(documents, h.world.clients);
    expect(cycleReads).toBe(h.world.service.requests.count() - planBefore);
  });
});
