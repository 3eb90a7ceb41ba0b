import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { Clients } from "../../src/clients/index.js";
import { loadDesiredState } from "../../src/desired/load.js";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import { EventLog } from "../../src/reconciler/event-log.js";
import { ReconcilerMetrics } from "../../src/reconciler/metrics.js";
import { Reconciler } from "../../src/reconciler/reconciler.js";
import { startService, type RunningService, type WorldInput } from "../../src/service/index.js";
import { clientsFor } from "../support/world.js";
import { API_ID, directorySource, FILES, liveOf, reconcilerWorld, TEST_OPTIONS } from "./support/reconciler-harness.js";

/**
 * Property: for random changes made out of band (routes retargeted, rescoped or deleted, routes and
 * integrations added in the owned API, the contact renamed or deleted) between random fault phases
 * of the service (errors before and after writes, latency: the service restarted on the same port
 * and state file with each phase's faults), once the faults stop the reconciler converges: live
 * state plans no change, and the writes its fault-free cycles make are exactly the differences a
 * plan finds when the faults stop (no extra write). CONVERGE_PROPERTY_SEED replays a run.
 */
const NUM_RUNS = 40;
const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

type Change =
  | { readonly type: "rescope"; readonly scopes: ReadonlyArray<string> }
  | { readonly type: "deleteRoute"; readonly routeKey: "GET /orders" | "POST /orders" }
  | { readonly type: "addRoute"; readonly path: string }
  | { readonly type: "addIntegration"; readonly uri: string }
  | { readonly type: "renameContact"; readonly name: string }
  | { readonly type: "deleteContact" };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ type: fc.constant("rescope" as const), scopes: fc.array(fc.constantFrom("orders.read", "orders.write", "orders.admin"), { maxLength: 2 }) }),
  fc.record({ type: fc.constant("deleteRoute" as const), routeKey: fc.constantFrom("GET /orders" as const, "POST /orders" as const) }),
  fc.record({ type: fc.constant("addRoute" as const), path: fc.stringMatching(/^[a-z]{1,6}$/) }),
  fc.record({ type: fc.constant("addIntegration" as const), uri: fc.stringMatching(/^[a-z]{1,6}$/).map((name) => `https://${name}.example/api`) }),
  fc.record({ type: fc.constant("renameContact" as const), name: fc.stringMatching(/^[A-Z][a-z]{2,8}$/) }),
  fc.constant({ type: "deleteContact" as const }),
);

const faults = fc.record({
  errorRate: fc.constantFrom(0, 0.3, 0.6),
  dropAfterWriteRate: fc.constantFrom(0, 0.3),
  latencyMs: fc.constantFrom(0, 3),
  seed: fc.integer({ min: 0, max: 1000 }),
});

const phase = fc.record({ changes: fc.array(change, { maxLength: 3 }), faults, cycles: fc.integer({ min: 1, max: 3 }) });

async function makeChange(clients: Clients, made: Change): Promise<void> {
  const { routes } = await liveOf(clients);
  const getOrders = routes.find((route) => route.routeKey === "GET /orders");
  switch (made.type) {
    case "rescope":
      if (getOrders) await clients.gateway.updateRoute(API_ID, getOrders.routeId, { authorizationScopes: [...made.scopes] });
      return;
    case "deleteRoute": {
      const route = routes.find((candidate) => candidate.routeKey === made.routeKey);
      if (route) await clients.gateway.deleteRoute(API_ID, route.routeId);
      return;
    }
    case "addRoute":
      if (!routes.some((route) => route.routeKey === `GET /${made.path}`)) await clients.gateway.createRoute(API_ID, { routeKey: `GET /${made.path}` });
      return;
    case "addIntegration":
      await clients.gateway.createIntegration(API_ID, { integrationType: "HTTP_PROXY", integrationUri: made.uri, integrationMethod: "GET", payloadFormatVersion: "1.0" });
      return;
    case "renameContact":
      await clients.account.putAlternateContact({ AlternateContactType: "BILLING", Name: made.name, Title: "Controller", EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0101" });
      return;
    default:
      await clients.account.deleteAlternateContact({ AlternateContactType: "BILLING" });
  }
}

interface Phase {
  readonly changes: ReadonlyArray<Change>;
  readonly faults: NonNullable<WorldInput["faults"]>;
  readonly cycles: number;
}

async function convergesAfterFaults(phases: ReadonlyArray<Phase>): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), "converge-reconciler-property-"));
  for (const [file, text] of Object.entries({ "api.yaml": FILES.api, "routes.yaml": FILES.routes, "contact.yaml": FILES.contact })) await writeFile(join(directory, file), text);
  const stateFile = join(directory, "state.jsonl");
  const boot = (faultsOf: WorldInput["faults"], port = 0, recordRequests = false) => startService({ port, stateFile, world: reconcilerWorld(faultsOf ? { faults: faultsOf } : {}), recordRequests });
  let service: RunningService = await boot(undefined);
  const port = service.port;
  const admin = clientsFor(service.url, "admin-token", { retry: { maxAttempts: 6 } });
  const reconciler = new Reconciler({
    connect: (onExchange) => clientsFor(service.url, "admin-token", { onExchange }),
    source: directorySource(directory),
    log: new EventLog(() => undefined),
    metrics: new ReconcilerMetrics({ withLock: false, version: "test", policy: "correct", shard: "", processMetrics: false }),
    // out-of-band changes to one resource in several phases are not a fight here
    options: { ...TEST_OPTIONS, fight: { corrections: 1000, cycles: 2 } },
  });
  try {
    await reconciler.cycleNow();
    for (const { changes, faults: phaseFaults, cycles } of phases) {
      // the changes made out of band while the service answers, then its faults for the phase's cycles
      await service.close();
      service = await boot(undefined, port);
      for (const made of changes) await makeChange(admin, made);
      await service.close();
      service = await boot(phaseFaults, port);
      for (let cycle = 0; cycle < cycles; cycle += 1) await reconciler.cycleNow();
    }
    await service.close();
    service = await boot(undefined, port, true);
    const documents = (await loadDesiredState([directory])).documents;
    const differences = (await readAndPlan(documents, admin)).plan.actions.filter((action) => ["create", "update", "delete"].includes(action.type));
    const readsBefore = service.requests.count();
    let record = await reconciler.cycleNow();
    if (record.result !== "success") record = await reconciler.cycleNow();
    expect(record.result, JSON.stringify(record.resources.filter((resource) => resource.state !== "in-sync"))).toBe("success");
    const writes = service.requests.records().filter((request) => request.write);
    expect(writes.every((request) => request.status < 300), JSON.stringify(writes)).toBe(true);
    expect(writes.length, `writes made ${JSON.stringify(writes.map((w) => w.operation))}, differences ${JSON.stringify(differences.map((a) => a.address))}`).toBe(differences.length);
    expect(service.requests.count() - readsBefore).toBeGreaterThan(0);
    expect((await readAndPlan(documents, admin)).plan.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  } finally {
    await reconciler.close();
    await admin.close();
    await service.close();
    await rm(directory, { recursive: true, force: true });
  }
}

describe("the continuous reconciler", () => {
  test("converges after random out-of-band changes and fault schedules, writing exactly the differences", async () => {
    await fc.assert(fc.asyncProperty(fc.array(phase, { minLength: 1, maxLength: 3 }), convergesAfterFaults), {
      numRuns: NUM_RUNS,
      ...(seed !== undefined ? { seed } : {}),
      interruptAfterTimeLimit: 100_000,
      markInterruptAsFailure: true,
    });
  }, 120_000);
});
