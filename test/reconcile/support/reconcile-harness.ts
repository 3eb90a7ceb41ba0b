import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, type Clients, type RetryPolicy } from "../../../src/clients/index.js";
import { loadDesiredState, type LoadedDocument } from "../../../src/desired/load.js";
import { NATURAL_KEY_FIELDS } from "../../../src/desired/kinds/integration.js";
import type { Plan, PlannedAction } from "../../../src/reconcile/model.js";
import { readAndPlan } from "../../../src/reconcile/reconcile.js";
import type { WorldInput } from "../../../src/service/index.js";
import type { Integration, Route } from "../../../src/contract/gateway.js";
import { clientsFor } from "../../support/world.js";
import { testWorld } from "../../support/worlds.js";

/** The token of the management account 111111111111 in {@link reconcileWorld} (allowed everything). */
export const ADMIN_TOKEN = "admin-token";
export const MEMBER_ACCOUNTS = ["222222222222", "333333333333"] as const;

/**
 * Regions of the reconcile worlds: no Region is ENABLING or DISABLING in the catalog itself (such a
 * Region would never settle), so every transition the tests see is one they started.
 */
export const RECONCILE_REGIONS: NonNullable<WorldInput["regions"]> = [
  { regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" },
  { regionName: "eu-west-1", optStatus: "ENABLED_BY_DEFAULT" },
  { regionName: "ap-east-1", optStatus: "DISABLED" },
  { regionName: "af-south-1", optStatus: "DISABLED" },
  { regionName: "il-central-1", optStatus: "DISABLED" },
  { regionName: "me-south-1", optStatus: "ENABLED" },
];

/** The organization world of the service tests, with the reconcile Regions and fast transitions. */
export function reconcileWorld(overrides: Partial<WorldInput> = {}): WorldInput {
  return testWorld({ regions: RECONCILE_REGIONS, regionTransitionMs: 20, ...overrides });
}

/** How the reconcile tests' clients retry: often, with fast backoff. */
export const ADMIN_RETRY = { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 100 } as const;

/** Clients of the management account with ADMIN_RETRY and `retry`; the caller closes them. */
export function adminClients(url: string, retry: Partial<RetryPolicy> = {}): Clients {
  return clientsFor(url, ADMIN_TOKEN, { retry: { ...ADMIN_RETRY, ...retry } });
}

/**
 * Writes `files` (name → text) into a fresh temporary directory and loads it with the real loader
 * (recursive, sorted, validated, cross-checked). Returns the documents and the directory; when the
 * loader refuses the files, removes the directory (the caller never learns it) and throws its error.
 */
export async function writeAndLoad(files: Readonly<Record<string, string>>): Promise<{ documents: LoadedDocument[]; fingerprint: string; directory: string }> {
  const directory = await writeDesiredFiles(files);
  try {
    const { documents, fingerprint } = await loadDesiredState([directory]);
    return { documents: [...documents], fingerprint, directory };
  } catch (error) {
    await removeDirectory(directory);
    throw error;
  }
}

export async function writeDesiredFiles(files: Readonly<Record<string, string>>): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "converge-reconcile-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(directory, name), text, "utf8");
  return directory;
}

export async function removeDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

/** The create, update and delete actions of a plan: what an apply would still change. */
export function pendingChanges(plan: Plan): PlannedAction[] {
  return plan.actions.filter((action) => action.type === "create" || action.type === "update" || action.type === "delete");
}

/** One line per pending action, for assertion messages. */
export function describeActions(actions: ReadonlyArray<PlannedAction>): string {
  return actions.map((action) => `${action.type} ${action.address}${action.changes.length ? ` ${JSON.stringify(action.changes)}` : ""}${action.reason ? ` (${action.reason})` : ""}`).join("\n");
}

/** The natural key of a live integration (server defaults filled in), as text. */
export function naturalKeyOf(integration: Integration): string {
  const record = integration as Record<string, unknown>;
  return JSON.stringify(NATURAL_KEY_FIELDS.map((field) => record[field] ?? (field === "connectionType" ? "INTERNET" : null)));
}

/** What repeats in a list under `keyOf`: key → the ids sharing it (only keys held by two or more). */
export function duplicatesBy<T>(items: ReadonlyArray<T>, keyOf: (item: T) => string, idOf: (item: T) => string): Record<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), idOf(item)]);
  }
  return Object.fromEntries([...groups].filter(([, ids]) => ids.length > 1));
}

export interface LiveApiContents {
  readonly integrations: Integration[];
  readonly routes: Route[];
}

/** Reads every integration and route of the APIs directly (paged listings). */
export async function readApis(clients: Clients, apiIds: ReadonlyArray<string>): Promise<Record<string, LiveApiContents>> {
  const out: Record<string, LiveApiContents> = {};
  for (const apiId of apiIds) {
    const [integrations, routes] = await Promise.all([collect(clients.gateway.integrations(apiId)), collect(clients.gateway.routes(apiId))]);
    out[apiId] = { integrations, routes };
  }
  return out;
}

/** Duplicate integrations (by natural key) and routes (by routeKey) per API; empty when there are none. */
export function duplicatesIn(live: Readonly<Record<string, LiveApiContents>>): Record<string, { integrations: Record<string, string[]>; routes: Record<string, string[]> }> {
  const out: Record<string, { integrations: Record<string, string[]>; routes: Record<string, string[]> }> = {};
  for (const [apiId, contents] of Object.entries(live)) {
    const integrations = duplicatesBy(contents.integrations, naturalKeyOf, (integration) => integration.integrationId);
    const routes = duplicatesBy(contents.routes, (route) => route.routeKey, (route) => route.routeId);
    if (Object.keys(integrations).length > 0 || Object.keys(routes).length > 0) out[apiId] = { integrations, routes };
  }
  return out;
}

/** Plans again against live state: the pending changes and the problems (both empty when converged). */
export async function replan(documents: ReadonlyArray<LoadedDocument>, clients: Clients, prune = false): Promise<{ pending: PlannedAction[]; problems: string[] }> {
  const result = await readAndPlan(documents, clients, { prune });
  return { pending: pendingChanges(result.plan), problems: result.problems.map((problem) => `${problem.file}:${problem.line} ${problem.path}: ${problem.message}`) };
}
