import { expect } from "vitest";
import type { Clients } from "../../../src/clients/index.js";
import type { LoadedDocument } from "../../../src/desired/load.js";
import { ESTATE_API_IDS, expectedEstateCounts } from "./estate.js";
import { describeActions, duplicatesIn, readApis, replan } from "./reconcile-harness.js";

/**
 * Asserts that the estate converged: a fresh plan has no create, update or delete and no problem;
 * no API holds two integrations with one natural key or two routes with one routeKey; each API holds
 * exactly the declared integrations and routes (plus the managed pair); every route's target exists.
 * `context` (e.g. the seed) prefixes every message.
 */
export async function expectEstateConverged(documents: ReadonlyArray<LoadedDocument>, clients: Clients, context: string, size = 8): Promise<void> {
  const { pending, problems } = await replan(documents, clients);
  expect(problems, `${context}: problems planning again`).toEqual([]);
  expect(pending.length, `${context}: a fresh plan still changes:\n${describeActions(pending)}`).toBe(0);

  const live = await readApis(clients, ESTATE_API_IDS);
  expect(duplicatesIn(live), `${context}: duplicate integrations (natural key) or routes (routeKey)`).toEqual({});
  const counts = Object.fromEntries(Object.entries(live).map(([apiId, contents]) => [apiId, { integrations: contents.integrations.length, routes: contents.routes.length }]));
  expect(counts, `${context}: live integrations and routes per API`).toEqual(expectedEstateCounts(size));
  for (const [apiId, contents] of Object.entries(live)) {
    const ids = new Set(contents.integrations.map((integration) => `integrations/${integration.integrationId}`));
    const dangling = contents.routes.filter((route) => route.target === undefined || !ids.has(route.target)).map((route) => `${route.routeKey} -> ${route.target}`);
    expect(dangling, `${context}: routes of ${apiId} without an existing target`).toEqual([]);
  }
}
