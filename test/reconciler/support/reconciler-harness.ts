import { mkdtemp, rm, writeFile, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, type Clients } from "../../../src/clients/index.js";
import type { Integration, Route } from "../../../src/contract/gateway.js";
import { LoadCache } from "../../../src/desired/load-cache.js";
import { loadDriftInput } from "../../../src/cli/state-input.js";
import type { DesiredSource } from "../../../src/reconciler/cycle-context.js";
import { EventLog } from "../../../src/reconciler/event-log.js";
import type { LockProvider } from "../../../src/reconciler/leadership.js";
import { ReconcilerMetrics } from "../../../src/reconciler/metrics.js";
import { Reconciler } from "../../../src/reconciler/reconciler.js";
import { DEFAULT_FIGHT, type ReconcilerOptions } from "../../../src/reconciler/reconciler-options.js";
import type { WorldInput } from "../../../src/service/index.js";
import { clientsFor, startWorld, type TestWorld } from "../../support/world.js";
import { reconcileWorld } from "../../reconcile/support/reconcile-harness.js";

/** The HTTP API of the reconciler tests: quick-created, so that its `$default` route and integration are service-managed. */
export const API_ID = "a1b2c3d4e5";

/** The reconciler tests' world: the reconcile world with one quick-created HTTP API. */
export function reconcilerWorld(overrides: Partial<WorldInput> = {}): WorldInput {
  return reconcileWorld({ apis: [{ apiId: API_ID, name: "orders", protocolType: "HTTP", target: "https://backend.example/orders" }], ...overrides });
}

/** Desired-state files of the tests, by name. */
export const FILES = {
  api: `kind: Api\napi: ${API_ID}\nspec: {prune: true}\n`,
  routes: [
    "kind: Integration",
    "name: orders-backend",
    `api: ${API_ID}`,
    "spec: {integrationType: HTTP_PROXY, integrationUri: 'https://orders.internal.example/api', integrationMethod: ANY, payloadFormatVersion: '1.0'}",
    "---",
    "kind: Route",
    `api: ${API_ID}`,
    "spec: {routeKey: GET /orders, target: {integration: orders-backend}, authorizationType: JWT, authorizerId: jwtauth1, authorizationScopes: [orders.read]}",
    "---",
    "kind: Route",
    `api: ${API_ID}`,
    "spec: {routeKey: POST /orders, target: {integration: orders-backend}}",
    "",
  ].join("\n"),
  contact: "kind: AlternateContact\nspec: {type: BILLING, name: Finance Team, title: Controller, emailAddress: billing@example.com, phoneNumber: '+1 555 0101'}\n",
} as const;

export interface Harness {
  readonly world: TestWorld;
  readonly directory: string;
  /** What the reconciler logged, line by line. */
  readonly logged: string[];
  readonly metrics: ReconcilerMetrics;
  write(file: string, text: string): Promise<void>;
  remove(file: string): Promise<void>;
  /** A reconciler of the directory's files (and terraform states) against the world (stepped with cycleNow; closed with the harness). */
  reconciler(options?: Partial<ReconcilerOptions>, lock?: LockProvider, states?: ReadonlyArray<string>): Reconciler;
  /** The API's live routes and integrations. */
  live(): Promise<{ routes: Route[]; integrations: Integration[] }>;
  close(): Promise<void>;
}

export const TEST_OPTIONS: ReconcilerOptions = {
  intervalMs: 1000,
  jitter: 0,
  policy: "correct",
  allowShrink: false,
  fight: DEFAULT_FIGHT,
  retryMs: 100,
  cycleTimeoutMs: 30_000,
  prune: false,
  repairTwins: false,
  parallelism: 8,
};

/** A world with its service on port 0, a directory of desired-state files (`files`, by name), and reconcilers of them. */
export async function startHarness(files: Readonly<Record<string, string>>, world: WorldInput = reconcilerWorld()): Promise<Harness> {
  const started = await startWorld({ world, recordRequests: true });
  const directory = await mkdtemp(join(tmpdir(), "converge-reconciler-"));
  for (const [file, text] of Object.entries(files)) await writeFile(join(directory, file), text);
  const logged: string[] = [];
  const metrics = new ReconcilerMetrics({ withLock: false, version: "test", policy: "correct", shard: "", processMetrics: false });
  const made: Reconciler[] = [];
  return {
    world: started,
    directory,
    logged,
    metrics,
    write: (file, text) => writeFile(join(directory, file), text),
    remove: (file) => unlink(join(directory, file)),
    reconciler(options = {}, lock, states = []) {
      const reconciler = new Reconciler({
        connect: (onExchange) => clientsFor(started.service, "admin-token", { onExchange }),
        source: directorySource(directory, states),
        lock,
        log: new EventLog((line) => logged.push(line)),
        metrics,
        options: { ...TEST_OPTIONS, ...options },
      });
      made.push(reconciler);
      return reconciler;
    },
    live: () => liveOf(started.clients),
    async close() {
      await Promise.all(made.map((reconciler) => reconciler.close()));
      await started.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** The desired state of a directory, as the CLI's reconcile loads it (a cache of unchanged files). */
export function directorySource(directory: string, states: ReadonlyArray<string> = []): DesiredSource {
  const cache = new LoadCache();
  return { load: () => loadDriftInput({ file: [directory], state: states }, { cache, onWarning: () => undefined }) };
}

export async function liveOf(clients: Clients): Promise<{ routes: Route[]; integrations: Integration[] }> {
  return {
    routes: await collect(clients.gateway.routes(API_ID)),
    integrations: await collect(clients.gateway.integrations(API_ID)),
  };
}
