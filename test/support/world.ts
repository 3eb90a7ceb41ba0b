import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { Credentials, createClients, type Clients, type ClientsOptions, type RetryPolicy } from "../../src/clients/index.js";
import { startService, type RunningService, type WorldInput } from "../../src/service/index.js";
import { testWorld } from "./worlds.js";

/**
 * One way to start the world in tests: the embedded service on port 0 with a world (and its
 * faults), clients of it, and their teardown. `useWorld` registers both with vitest for a file or a
 * `describe`; `startWorld` and `withWorld` start one inside a test.
 */

/** Retries fast enough for tests, still exponential with jitter. */
export const FAST_RETRY = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 50 } as const;

/** What the clients of a world take besides their endpoint and token. */
export type TestClientsOptions = Partial<Omit<ClientsOptions, "endpoint" | "credentials">>;

export interface WorldOptions {
  /** The world the service boots. @default testWorld() */
  readonly world?: WorldInput;
  /** The service's faults (`faults` of the world file), in place of the world's own. */
  readonly faults?: WorldInput["faults"];
  /** Keep every request with its body in `service.requests`. @default false */
  readonly recordRequests?: boolean;
  /** Makes the service's state durable in this file. @default in memory */
  readonly stateFile?: string;
  /** The token of `clients`. @default "admin-token" (testWorld's administrator) */
  readonly token?: string;
  /** How `clients` retries. @default FAST_RETRY */
  readonly retry?: Partial<RetryPolicy>;
}

/** A started world: the service, clients of it, and what closes both. */
export interface TestWorld {
  readonly service: RunningService;
  /** Clients of the service with the world's token and retry policy, made on first use; closed with the world. */
  readonly clients: Clients;
  /** Clients of the service with another token (or options); closed with the world. */
  clientsAs(token: string, options?: TestClientsOptions): Clients;
  /** Closes every client made here, then the service. */
  close(): Promise<void>;
}

/** Both clients against `endpoint` with `token`, fast retries, and whatever `options` adds; the caller closes them. */
export function clientsFor(endpoint: string | RunningService, token = "admin-token", options: TestClientsOptions = {}): Clients {
  return createClients({
    endpoint: typeof endpoint === "string" ? endpoint : endpoint.url,
    credentials: new Credentials(token),
    ...options,
    retry: { ...FAST_RETRY, ...options.retry },
  });
}

/** Starts the embedded service on port 0 with `options.world` (testWorld() unless given). */
export async function startWorld(options: WorldOptions = {}): Promise<TestWorld> {
  const world = options.world ?? testWorld();
  const service = await startService({
    port: 0,
    world: options.faults === undefined ? world : { ...world, faults: options.faults },
    ...(options.recordRequests !== undefined ? { recordRequests: options.recordRequests } : {}),
    ...(options.stateFile !== undefined ? { stateFile: options.stateFile } : {}),
  });
  const made: Clients[] = [];
  const clientsAs = (token: string, clientOptions: TestClientsOptions = {}): Clients => {
    const clients = clientsFor(service, token, clientOptions);
    made.push(clients);
    return clients;
  };
  let clients: Clients | undefined;
  return {
    service,
    get clients() {
      clients ??= clientsAs(options.token ?? "admin-token", options.retry ? { retry: options.retry } : {});
      return clients;
    },
    clientsAs,
    async close() {
      await Promise.all(made.splice(0).map((each) => each.close()));
      await service.close();
    },
  };
}

/** Runs `use` with a world started for it, and closes the world after, whether `use` succeeds or fails. */
export async function withWorld<T>(options: WorldOptions, use: (world: TestWorld) => Promise<T>): Promise<T> {
  const world = await startWorld(options);
  try {
    return await use(world);
  } finally {
    await world.close();
  }
}

/**
 * Starts a world in a `beforeAll` (with `each`, a fresh one in a `beforeEach`) of the calling file
 * or `describe`, and closes it in the matching `afterAll` / `afterEach`. Returns a view of it whose
 * `service` and `clients` read through to the started world, so that they may be destructured at
 * the top of a file (`const { service, clients } = useWorld()`) and used in hooks and tests.
 */
export function useWorld(options: WorldOptions = {}, when: { readonly each?: boolean } = {}): TestWorld {
  let started: TestWorld | undefined;
  const current = (): TestWorld => {
    if (!started) throw new Error("useWorld: the world is started in a beforeAll (beforeEach with each: true): use it in hooks and tests, not at the top of a file");
    return started;
  };
  (when.each ? beforeEach : beforeAll)(async () => {
    started = await startWorld(options);
  });
  (when.each ? afterEach : afterAll)(async () => {
    await started?.close();
    started = undefined;
  });
  return {
    service: serviceView(() => current().service),
    clients: clientsView(() => current().clients),
    clientsAs: (token, clientOptions) => current().clientsAs(token, clientOptions),
    close: () => current().close(),
  };
}

/** A RunningService whose members are those of `current()` at the time they are read. */
function serviceView(current: () => RunningService): RunningService {
  return {
    get url() { return current().url; },
    get port() { return current().port; },
    get world() { return current().world; },
    get demo() { return current().demo; },
    get requests() { return current().requests; },
    get adminToken() { return current().adminToken; },
    close: () => current().close(),
  };
}

/** Clients whose members are those of `current()` at the time they are read. */
function clientsView(current: () => Clients): Clients {
  return {
    get account() { return current().account; },
    get gateway() { return current().gateway; },
    close: () => current().close(),
  };
}
