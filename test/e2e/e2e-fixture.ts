import { readFileSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect } from "vitest";
import { DEMO_WORLD, type RunningService, type WorldInput } from "../../src/service/index.js";
import { describeCliResult, runCli, type CliResult } from "../support/cli.js";
import { accountCall, call } from "../support/http.js";
import { startWorld, type TestWorld, type WorldOptions } from "../support/world.js";

/**
 * Shared pieces of the CLI end-to-end tests: the embedded service started in the test process, the
 * desired state as real files in a temp directory, and reads of live state over HTTP.
 */

export const ADMIN_TOKEN = "demo-admin-token";
/** Per-test timeout: tests run several CLI subprocesses each, concurrently, on a possibly busy machine. */
export const E2E_TIMEOUT_MS = 60_000;
/** The demo world's quick-created HTTP API (its `$default` route and integration are managed). */
export const ORDERS_API = "a1b2c3d4e5";
/** The demo world's WebSocket API. */
export const CHAT_API = "w5s0ck3t01";
export const EXAMPLES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/desired-state");

/** The demo world with short Region transitions (so that apply waits ~100 ms, not 1.5 s). */
export function e2eWorld(overrides: Partial<WorldInput> = {}): WorldInput {
  return { ...DEMO_WORLD, regionTransitionMs: 100, ...overrides };
}

/** examples/environments: one set of documents, a variable file per environment. */
export const ENVIRONMENTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/environments");
/** The API of each environment of examples/environments in environmentsWorld(). */
export const ENVIRONMENT_APIS = { dev: "ordersdev1", prod: "ordersprd1" } as const;

/** examples/environments/world.json, the world its README serves: an HTTP API per environment, named as its variable files name them. */
export function environmentsWorld(): WorldInput {
  const world = JSON.parse(readFileSync(join(ENVIRONMENTS_DIR, "world.json"), "utf8")) as WorldInput;
  expect(world.apis?.map((api) => [api.name, api.apiId])).toEqual([["orders-dev", ENVIRONMENT_APIS.dev], ["orders-prod", ENVIRONMENT_APIS.prod]]);
  return { ...world, regionTransitionMs: 100 };
}

/** The end-to-end tests' service: `world` (e2eWorld() unless given), recording every request with its body. */
export function e2eService(world: WorldInput = e2eWorld()): WorldOptions {
  return { world, recordRequests: true };
}

/**
 * Services started for the tests of one file, which run concurrently, each on its own service:
 * `closeAll()` (in afterAll) closes every one.
 */
export class Services {
  readonly #started: TestWorld[] = [];

  async start(world?: WorldInput): Promise<RunningService> {
    const started = await startWorld(e2eService(world));
    this.#started.push(started);
    return started.service;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#started.splice(0).map((started) => started.close()));
  }
}

/** A fresh temp directory; `cleanup()` removes every directory made so far. */
export class TempDirs {
  readonly #made: string[] = [];

  async make(label = "estate"): Promise<string> {
    const directory = await mkdtemp(join(tmpdir(), `converge-e2e-${label}-`));
    this.#made.push(directory);
    return directory;
  }

  /** A temp directory holding a copy of examples/desired-state. */
  async copyOfExamples(): Promise<string> {
    const directory = await this.make("examples");
    await cp(EXAMPLES_DIR, directory, { recursive: true });
    return directory;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.#made.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
  }
}

/**
 * The services and temp directories of one test file, registered with vitest so that both are
 * closed and removed after the file's tests.
 */
export function useE2eResources(): { services: Services; dirs: TempDirs } {
  const services = new Services();
  const dirs = new TempDirs();
  afterAll(async () => {
    await services.closeAll();
    await dirs.cleanup();
  });
  return { services, dirs };
}

/** A fresh service with the example estate applied by the CLI (request log cleared after), and the estate's directory. */
export async function convergedExamples(services: Services, dirs: TempDirs): Promise<{ service: RunningService; dir: string }> {
  const service = await services.start();
  const dir = await dirs.copyOfExamples();
  expectExit(await converge(service, ["apply", "-f", ".", "--auto-approve"], dir), 0);
  service.requests.reset();
  return { service, dir };
}

/** Writes `files` (name → text) into `directory`. */
export async function writeFiles(directory: string, files: Readonly<Record<string, string>>): Promise<void> {
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(join(directory, name), text)));
}

/** Replaces the one occurrence of `from` in a file; fails the test when it does not occur exactly once. */
export async function replaceInFile(file: string, from: string, to: string): Promise<void> {
  const text = await readFile(file, "utf8");
  expect(text.split(from).length - 1, `occurrences of ${JSON.stringify(from)} in ${file}`).toBe(1);
  await writeFile(file, text.replace(from, () => to));
}

/** Runs the CLI against `service` as the demo administrator, in `cwd`. */
export function converge(service: RunningService, args: ReadonlyArray<string>, cwd: string, token = ADMIN_TOKEN): Promise<CliResult> {
  return runCli(args, { cwd, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: token } });
}

/** Asserts the exit code, printing the whole output when it differs. */
export function expectExit(result: CliResult, code: number): void {
  expect(result.code, describeCliResult(result)).toBe(code);
}

/** Write requests the service answered since the last reset (any status). */
export function writeRequests(service: RunningService): Array<{ operation: string; path: string; status: number; body?: unknown }> {
  return service.requests.records().filter((record) => record.write);
}

/** Operation names of the writes since the last reset, counted: `{CreateRoute: 3, …}`. */
export function writeCounts(service: RunningService): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const record of writeRequests(service)) counts[record.operation] = (counts[record.operation] ?? 0) + 1;
  return counts;
}

export interface LiveRoute {
  readonly routeId: string;
  readonly routeKey: string;
  readonly target?: string;
  readonly apiGatewayManaged?: boolean;
  readonly [field: string]: unknown;
}

export interface LiveIntegration {
  readonly integrationId: string;
  readonly integrationType: string;
  readonly integrationUri?: string;
  readonly apiGatewayManaged?: boolean;
  readonly [field: string]: unknown;
}

/** Every route of an API, read over HTTP (one page of up to 500). */
export async function liveRoutes(service: RunningService, apiId: string): Promise<LiveRoute[]> {
  const result = await call(service, `/v2/apis/${apiId}/routes?maxResults=500`, { method: "GET", token: ADMIN_TOKEN });
  expect(result.status, result.text).toBe(200);
  expect(result.json.nextToken).toBeUndefined();
  return result.json.items as LiveRoute[];
}

/** Every integration of an API, read over HTTP (one page of up to 500). */
export async function liveIntegrations(service: RunningService, apiId: string): Promise<LiveIntegration[]> {
  const result = await call(service, `/v2/apis/${apiId}/integrations?maxResults=500`, { method: "GET", token: ADMIN_TOKEN });
  expect(result.status, result.text).toBe(200);
  expect(result.json.nextToken).toBeUndefined();
  return result.json.items as LiveIntegration[];
}

/** The one live route with `routeKey`; fails the test when there is none or several. */
export async function liveRoute(service: RunningService, apiId: string, routeKey: string): Promise<LiveRoute> {
  const matches = (await liveRoutes(service, apiId)).filter((route) => route.routeKey === routeKey);
  expect(matches, `routes ${JSON.stringify(routeKey)} of ${apiId}`).toHaveLength(1);
  return matches[0]!;
}

/** The one live integration with `integrationUri`; fails the test when there is none or several. */
export async function liveIntegrationByUri(service: RunningService, apiId: string, integrationUri: string): Promise<LiveIntegration> {
  const matches = (await liveIntegrations(service, apiId)).filter((integration) => integration.integrationUri === integrationUri);
  expect(matches, `integrations of ${apiId} with URI ${integrationUri}`).toHaveLength(1);
  return matches[0]!;
}

/** Creates an integration over HTTP (outside converge) and returns it. */
export async function createIntegrationOverHttp(service: RunningService, apiId: string, body: Record<string, unknown>): Promise<LiveIntegration> {
  const result = await call(service, `/v2/apis/${apiId}/integrations`, { body, token: ADMIN_TOKEN });
  expect(result.status, result.text).toBe(201);
  return result.json as LiveIntegration;
}

/** Creates a route over HTTP (outside converge) and returns it. */
export async function createRouteOverHttp(service: RunningService, apiId: string, body: Record<string, unknown>): Promise<LiveRoute> {
  const result = await call(service, `/v2/apis/${apiId}/routes`, { body, token: ADMIN_TOKEN });
  expect(result.status, result.text).toBe(201);
  return result.json as LiveRoute;
}

/** The live alternate contact, or `null` when the account has none of that type. */
export async function liveContact(service: RunningService, type: string, accountId?: string): Promise<Record<string, unknown> | null> {
  const result = await accountCall(service, "GetAlternateContact", { ...(accountId ? { AccountId: accountId } : {}), AlternateContactType: type }, ADMIN_TOKEN);
  if (result.status === 404) return null;
  expect(result.status, result.text).toBe(200);
  return result.json.AlternateContact as Record<string, unknown>;
}

/** The live opt status of a Region, or the management account's own when `accountId` is omitted. */
export async function liveRegionStatus(service: RunningService, region: string, accountId?: string): Promise<string> {
  const result = await accountCall(service, "GetRegionOptStatus", { ...(accountId ? { AccountId: accountId } : {}), RegionName: region }, ADMIN_TOKEN);
  expect(result.status, result.text).toBe(200);
  return result.json.RegionOptStatus as string;
}

/** A plan as `--output json` prints it and `--out` writes it (the fields the tests read). */
export interface PlanJson {
  readonly formatVersion: number;
  readonly liveFingerprint: string;
  readonly prune: boolean;
  readonly actions: ReadonlyArray<{
    readonly address: string;
    readonly kind: string;
    readonly type: "create" | "update" | "delete" | "no-op" | "refused";
    readonly name: string;
    readonly reason?: string;
    readonly changes: ReadonlyArray<{ readonly path: string; readonly before: unknown; readonly after: unknown }>;
    readonly source?: { readonly file: string; readonly line: number; readonly column: number };
  }>;
  readonly summary: { readonly create: number; readonly update: number; readonly delete: number; readonly noop: number; readonly refused: number };
}

/** Parses `--output json` of plan; fails the test with the output when it is not JSON. */
export function parsePlanJson(result: CliResult): PlanJson {
  try {
    return JSON.parse(result.stdout) as PlanJson;
  } catch (error) {
    throw new Error(`plan --output json did not print JSON (${(error as Error).message}):\n${describeCliResult(result)}`);
  }
}

/** The actions of a plan that are not no-ops, as `type address` lines, sorted. */
export function actionLines(plan: PlanJson): string[] {
  return plan.actions.filter((action) => action.type !== "no-op").map((action) => `${action.type} ${action.address}`).sort();
}
