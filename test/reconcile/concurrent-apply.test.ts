import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withLock } from "../../src/cli/lock.js";
import type { LoadedDocument } from "../../src/desired/load.js";
import { applyPlan } from "../../src/reconcile/apply.js";
import { hasChanges } from "../../src/reconcile/model.js";
import { readAndPlan } from "../../src/reconcile/reconcile.js";
import { describeRun, startCli, type CliRun } from "./support/cli-process.js";
import { useWorld, withWorld, type TestWorld, type WorldOptions } from "../support/world.js";
import { ADMIN_RETRY, adminClients, describeActions, readApis, reconcileWorld, removeDirectory, replan, writeAndLoad } from "./support/reconcile-harness.js";

/**
 * Concurrent applies (docs/manual/plan-and-apply.md): 2 and 4 applies start at once on
 * the same desired state, from empty (a fresh API per round: 3 integrations, 4 routes targeting
 * them), in an API the desired state owns (`kind: Api` with prune) and in one it does not. Without
 * a lock the runs race (several create each integration); each run settles the twins it created,
 * so that afterwards, with at most one further apply (with --repair-twins where the API is not
 * owned: the documented way), every document has exactly one live integration and a plan is clean.
 * With the lock, the runs take turns and no duplicate is ever created (the service's request log
 * counts exactly one CreateIntegration per document, and no delete).
 *
 * Most rounds run the applies in this process, each with its own clients (its own connection
 * pool), as separate runs would: 20 rounds per case cost seconds. Real `converge apply` processes
 * (the most faithful, about 0.4 s of CPU each) run fewer rounds, with the same checks.
 */

const ROUNDS = 20;
const CLI_ROUNDS = 3;
const INTEGRATIONS = 3;
const TIMEOUT_MS = 180_000;
/**
 * The processes' service answers this late: a process starts in a few hundred ms, so without it
 * one run often finished creating before the other read, and they rarely raced. With it their
 * plans overlap as those of two pipelines against a remote endpoint would.
 */
const SLOW_MS = 150;

type Ownership = "owned" | "not owned";

/** The service a round runs against, and clients to set up and check it. */
type Target = Pick<TestWorld, "service" | "clients">;

interface Round {
  readonly target: Target;
  readonly apiId: string;
  readonly documents: LoadedDocument[];
  readonly directory: string;
}

interface RoundResult {
  /** Exit codes of the concurrent runs (0 applied and verified, 1 error or not converged yet). */
  readonly exits: number[];
  /** Integrations created during the concurrent runs (one per document when none raced). */
  readonly created: number;
  readonly deleted: number;
  /** Whether the plan after the runs still had changes or problems (so one further apply ran). */
  readonly repairedAfter: boolean;
}

/** A target's world: its service answers `latencyMs` late and records requests. */
function targetWorld(latencyMs: number): WorldOptions {
  return { world: reconcileWorld(), faults: { latencyMs }, recordRequests: true, retry: ADMIN_RETRY };
}

/** The in-process runs' service. */
const fast: Target = useWorld(targetWorld(0));
const directories: string[] = [];
let roundNumber = 0;

afterAll(async () => {
  await Promise.all(directories.map(removeDirectory));
});

/** A fresh, empty API and the desired state of the round: 3 integrations and 4 routes targeting them (two share one). */
async function newRound(target: Target, ownership: Ownership): Promise<Round> {
  roundNumber += 1;
  const { apiId } = await target.clients.gateway.createApi({ name: `concurrent-${roundNumber}`, protocolType: "HTTP" });
  const documents: string[] = ownership === "owned" ? [`kind: Api\napi: ${apiId}\nspec: {prune: true, protocolType: HTTP}`] : [];
  for (let i = 0; i < INTEGRATIONS; i += 1) {
    documents.push(`kind: Integration\nname: backend-${i}\napi: ${apiId}\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://backend-${i}.example/api", integrationMethod: ANY, payloadFormatVersion: "1.0", timeoutInMillis: ${5000 + i}}`);
  }
  for (const [routeKey, target] of [["GET /orders", 0], ["POST /orders", 0], ["GET /stock", 1], ["GET /users", 2]] as const) {
    documents.push(`kind: Route\napi: ${apiId}\nspec: {routeKey: ${routeKey}, target: {integration: backend-${target}}}`);
  }
  const loaded = await writeAndLoad({ "estate.yaml": documents.join("\n---\n") });
  directories.push(loaded.directory);
  return { target, apiId, documents: loaded.documents, directory: loaded.directory };
}

/** One run as `converge apply --auto-approve [--repair-twins]` does it, in this process, with its own clients: plan, apply, verify. */
async function applyInProcess(round: Round, repairTwins = false): Promise<number> {
  const clients = adminClients(round.target.service.url);
  try {
    const { plan, problems } = await readAndPlan(round.documents, clients, { repairTwins });
    if (problems.length > 0) return 1;
    if (!hasChanges(plan)) return 0;
    const report = await applyPlan(plan, clients);
    const after = await readAndPlan(round.documents, clients, { repairTwins: plan.repairTwins });
    return report.failed === 0 && !hasChanges(after.plan) && after.problems.length === 0 ? 0 : 1;
  } finally {
    await clients.close();
  }
}

function applyProcess(round: Round, extra: ReadonlyArray<string> = []): Promise<CliRun> {
  return startCli(["apply", "-f", round.directory, "--auto-approve", ...extra], round.target.service.url, 60_000).done;
}

/**
 * Asserts the end state of a round: each document's integration exactly once (no twin left), the
 * routes targeting the three, and a plan with no change and no problem.
 */
async function expectConverged(round: Round, context: string): Promise<void> {
  const { clients } = round.target;
  const live = (await readApis(clients, [round.apiId]))[round.apiId]!;
  const uris = live.integrations.map((integration) => integration.integrationUri).sort();
  expect(uris, `${context}: live integrations`).toEqual([0, 1, 2].map((i) => `https://backend-${i}.example/api`));
  const ids = new Map(live.integrations.map((integration) => [`integrations/${integration.integrationId}`, integration.integrationUri]));
  expect(Object.fromEntries(live.routes.map((route) => [route.routeKey, ids.get(route.target ?? "")])), `${context}: routes and their targets`).toEqual({
    "GET /orders": "https://backend-0.example/api", "POST /orders": "https://backend-0.example/api", "GET /stock": "https://backend-1.example/api", "GET /users": "https://backend-2.example/api",
  });
  const { pending, problems } = await replan(round.documents, clients);
  expect(problems, `${context}: problems planning again`).toEqual([]);
  expect(describeActions(pending), `${context}: changes planned again`).toBe("");
}

/**
 * Runs `runs` applies at once on a fresh round, then at most one further apply (with
 * --repair-twins where the API is not owned) when the plan is not clean yet, and checks the end state.
 */
async function playRound(target: Target, ownership: Ownership, runs: number, start: (round: Round) => Promise<number>, further: (round: Round) => Promise<number>): Promise<RoundResult> {
  const round = await newRound(target, ownership);
  const { service, clients } = target;
  service.requests.reset();
  const exits = await Promise.all(Array.from({ length: runs }, () => start(round)));
  const created = service.requests.count({ operation: "CreateIntegration", status: 201 });
  const deleted = service.requests.count({ operation: "DeleteIntegration", status: 204 });
  const { pending, problems } = await replan(round.documents, clients);
  const repairedAfter = pending.length > 0 || problems.length > 0;
  if (repairedAfter) expect(await further(round), `the further apply of round ${roundNumber}`).toBe(0);
  await expectConverged(round, `round ${roundNumber} (${runs} runs, ${ownership}, exits ${exits.join(" ")})`);
  return { exits, created, deleted, repairedAfter };
}

function summarize(label: string, results: ReadonlyArray<RoundResult>): string {
  const raced = results.filter((result) => result.created > INTEGRATIONS).length;
  const exits = results.flatMap((result) => result.exits);
  return `${label}: ${results.length} rounds, ${raced} with duplicate creates (${results.reduce((sum, result) => sum + result.created - INTEGRATIONS, 0)} extra, ${results.reduce((sum, result) => sum + result.deleted, 0)} deleted by the runs), ` +
    `${results.filter((result) => result.repairedAfter).length} needing a further apply; runs exiting 0: ${exits.filter((code) => code === 0).length}/${exits.length}`;
}

const furtherInProcess = (ownership: Ownership) => (round: Round) => applyInProcess(round, ownership === "not owned");
const furtherProcess = (ownership: Ownership) => async (round: Round) => {
  const run = await applyProcess(round, ownership === "not owned" ? ["--repair-twins"] : []);
  expect(run.code, describeRun(run)).toBe(0);
  return 0;
};

describe.each([2, 4])("%i applies at once on the same desired state, from empty", (runs) => {
  describe.each<Ownership>(["owned", "not owned"])("in an API the desired state is %s", (ownership) => {
    it(`without a lock (${ROUNDS} rounds, in process): the runs settle their twins; one integration per document, a clean plan`, { timeout: TIMEOUT_MS }, async () => {
      const results: RoundResult[] = [];
      for (let i = 0; i < ROUNDS; i += 1) results.push(await playRound(fast, ownership, runs, (round) => applyInProcess(round), furtherInProcess(ownership)));
      console.info(summarize(`${runs} runs, ${ownership}, no lock, in process`, results));
      // the runs really raced: without settling, these rounds would have left twins
      expect(results.filter((result) => result.created > INTEGRATIONS).length, summarize("rounds", results)).toBeGreaterThan(0);
      // every duplicate created was deleted again by the run that created it
      for (const result of results) expect(result.deleted).toBe(result.created - INTEGRATIONS);
    });

    it(`with the lock (${ROUNDS} rounds, in process): no duplicate is ever created`, { timeout: TIMEOUT_MS }, async () => {
      const results: RoundResult[] = [];
      for (let i = 0; i < ROUNDS; i += 1) {
        const lockFile = join(directories[directories.length - 1] ?? "/tmp", `round-${roundNumber}.lock`);
        const locked = (round: Round) => withLock(lockFile, { timeoutMs: 60_000, command: "concurrent-apply test", retryDelayMs: [5, 20] }, () => applyInProcess(round));
        results.push(await playRound(fast, ownership, runs, locked, furtherInProcess(ownership)));
      }
      console.info(summarize(`${runs} runs, ${ownership}, lock, in process`, results));
      for (const result of results) {
        expect(result, summarize("rounds", results)).toMatchObject({ created: INTEGRATIONS, deleted: 0, repairedAfter: false });
        expect(result.exits).toEqual(Array.from({ length: runs }, () => 0));
      }
    });
  });
});

describe.concurrent("converge apply processes at once on the same desired state, from empty", () => {
  it.for(([2, 4] as const).flatMap((runs) => (["owned", "not owned"] as const).map((ownership) => [runs, ownership] as const)))(
    `%i processes, in an API the desired state is %s: ${CLI_ROUNDS} rounds without --lock, ${CLI_ROUNDS} with: the same`,
    { timeout: TIMEOUT_MS },
    async ([runs, ownership]) => {
      // a service of its own (its request log counts this test's rounds only), answering late
      await withWorld(targetWorld(SLOW_MS), async (target) => {
        const unlocked: RoundResult[] = [];
        for (let i = 0; i < CLI_ROUNDS; i += 1) {
          unlocked.push(await playRound(target, ownership, runs, async (round) => (await applyProcess(round)).code ?? 1, furtherProcess(ownership)));
        }
        const locked: RoundResult[] = [];
        for (let i = 0; i < CLI_ROUNDS; i += 1) {
          locked.push(await playRound(target, ownership, runs, async (round) => {
            const run = await applyProcess(round, ["--lock", join(round.directory, "..", `${round.apiId}.lock`), "--lock-timeout", "60"]);
            expect(run.code, describeRun(run)).toBe(0);
            return run.code!;
          }, furtherProcess(ownership)));
        }
        console.info(summarize(`${runs} processes, ${ownership}, no lock`, unlocked));
        console.info(summarize(`${runs} processes, ${ownership}, --lock`, locked));
        for (const result of unlocked) expect(result.deleted).toBe(result.created - INTEGRATIONS);
        for (const result of locked) expect(result).toMatchObject({ created: INTEGRATIONS, deleted: 0, repairedAfter: false });
      });
    },
  );
});
