import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { applyPlan } from "../../src/reconcile/apply.js";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import { startWorld } from "../support/world.js";
import { ADMIN_RETRY, describeActions, duplicatesIn, readApis, reconcileWorld, removeDirectory, replan, writeAndLoad } from "./support/reconcile-harness.js";
import { createLiveState, desiredFiles, scenarioArbitrary, type Scenario } from "./support/scenario.js";

/**
 * Property: for random desired state (integrations, some pinned by integrationId, routes targeting
 * them by name, contacts, Region opt-ins, Api documents with or without prune) meeting random live state (twins of the desired
 * resources with other field values, unrelated resources, a quick-created managed pair, contacts,
 * Regions mid-transition), one plan + apply leaves nothing to do: a fresh plan has no create, update
 * or delete and no problem, and no API holds duplicate integrations or routes. Set
 * CONVERGE_PROPERTY_SEED to replay a run.
 */
const NUM_RUNS = 30;
const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

async function planApplyConverges(scenario: Scenario): Promise<void> {
  const world = await startWorld({ world: reconcileWorld(), retry: { ...ADMIN_RETRY, maxAttempts: 2 } });
  const { service, clients } = world;
  let directory: string | undefined;
  try {
    const liveIds = await createLiveState(service, scenario);
    const loaded = await writeAndLoad(desiredFiles(scenario, liveIds));
    directory = loaded.directory;
    const documents = loaded.documents;

    const first = await readAndPlan(documents, clients, { prune: scenario.prune });
    expect(first.problems, "problems of the first plan").toEqual([]);
    const report = await applyPlan(first.plan, clients, { regionPollIntervalMs: 5, regionSettleTimeoutMs: 5_000 });
    const failures = report.outcomes.filter((outcome) => outcome.status === "failed").map((outcome) => `${outcome.address}: ${outcome.error}`);
    expect(failures, `failed actions of the plan:\n${describeActions(first.plan.actions.filter((action) => action.type !== "no-op"))}`).toEqual([]);

    const after = await replan(documents, clients, scenario.prune);
    expect(after.problems, "problems planning again").toEqual([]);
    expect(after.pending.length, `a fresh plan after apply still changes:\n${describeActions(after.pending)}\n\nfirst plan:\n${describeActions(first.plan.actions.filter((action) => action.type !== "no-op"))}`).toBe(0);
    // an integration a document pins is identified by its ID, so it may share its natural key with another
    const pinned = new Set(documents.flatMap((loaded) => (loaded.document.kind === "Integration" && loaded.document.spec.integrationId ? [loaded.document.spec.integrationId] : [])));
    const live = await readApis(clients, Object.values(liveIds.apiIds));
    const unpinned = Object.fromEntries(Object.entries(live).map(([apiId, contents]) => [apiId, { ...contents, integrations: contents.integrations.filter((integration) => !pinned.has(integration.integrationId)) }]));
    expect(duplicatesIn(unpinned), "duplicate integrations (natural key, pinned ones aside) or routes (routeKey)").toEqual({});
  } finally {
    await world.close();
    if (directory) await removeDirectory(directory);
  }
}

describe("plan then apply", () => {
  test("leaves an empty plan for random desired and live states", async () => {
    await fc.assert(fc.asyncProperty(scenarioArbitrary, planApplyConverges), {
      numRuns: NUM_RUNS,
      ...(seed !== undefined ? { seed } : {}),
      // shrinking starts a service per attempt: bound it so that a failure still reports in time
      interruptAfterTimeLimit: 90_000,
      markInterruptAsFailure: true,
    });
  }, 120_000);
});
