import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Clients } from "../../src/clients/index.js";
import { runCli } from "../support/cli.js";
import { cycleAfter, eventually, startReconcileProcess, type ReconcileProcess } from "../support/reconcile-process.js";
import { startServeProcess, type ServeProcess } from "../support/serve-process.js";
import { clientsFor } from "../support/world.js";
import { API_ID, FILES, liveOf, reconcilerWorld } from "../reconciler/support/reconciler-harness.js";

/**
 * `converge reconcile` as a process against `converge serve` as a process (and, in the packaged
 * project, the release's executable for both): corrections within two intervals, observe, the guards
 * on the desired state, the change budget, a fight, two instances on one lock, and SIGTERM while it
 * writes. The cycles' rules are tested in-process (test/reconciler/).
 */

let root: string;
let serve: ServeProcess | undefined;
let clients: Clients | undefined;
const running: ReconcileProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "converge-reconcile-e2e-"));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((process) => process.stop("SIGKILL")));
  await clients?.close();
  await serve?.stop("SIGTERM");
  clients = undefined;
  serve = undefined;
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A fresh `converge serve` with the reconciler tests' world, a directory of desired-state files, and clients of it. */
async function fixture(name: string, files: Readonly<Record<string, string>>, world = reconcilerWorld()) {
  const directory = join(root, name);
  await rm(directory, { recursive: true, force: true });
  await import("node:fs/promises").then((fs) => fs.mkdir(join(directory, "desired"), { recursive: true }));
  for (const [file, text] of Object.entries(files)) await writeFile(join(directory, "desired", file), text);
  const worldFile = join(directory, "world.json");
  await writeFile(worldFile, JSON.stringify(world));
  const started = await startServeProcess({ worldFile });
  serve = started;
  clients = clientsFor(started.url, "admin-token");
  const env = { CONVERGE_ENDPOINT: started.url, CONVERGE_TOKEN: "admin-token" };
  const start = async (args: ReadonlyArray<string>) => {
    const process = await startReconcileProcess(["-f", join(directory, "desired"), "--jitter", "0", ...args], { env });
    running.push(process);
    return process;
  };
  return { directory, desired: join(directory, "desired"), env, start };
}

const ALL = { "api.yaml": FILES.api, "routes.yaml": FILES.routes, "contact.yaml": FILES.contact };

async function route(routeKey: string) {
  return (await liveOf(clients!)).routes.find((candidate) => candidate.routeKey === routeKey);
}

describe("converge reconcile, running", () => {
  it("corrects a change made by hand within two intervals, and is ready and alive meanwhile", async () => {
    const { start } = await fixture("corrects", ALL);
    const reconcile = await start(["--interval", "1s"]);
    expect((await reconcile.request("/healthz")).status).toBe(200);
    const first = await cycleAfter(reconcile, 0);
    expect(first.last).toMatchObject({ result: "success" });
    expect((await reconcile.request("/readyz")).status).toBe(200);
    const before = (await reconcile.status()).last!.cycle;
    const getOrders = (await route("GET /orders"))!;
    await clients!.gateway.updateRoute(API_ID, getOrders.routeId, { authorizationScopes: ["orders.admin"] });

    const corrected = await eventually("the hand change corrected", async () => {
      const status = await reconcile.status();
      return status.last?.writes.some((write) => write.address === `Route/${API_ID}/GET /orders` && write.type === "update" && write.status === "done") ? status : undefined;
    });
    expect(corrected.last!.cycle).toBeLessThanOrEqual(before + 2);
    expect((await route("GET /orders"))!.authorizationScopes).toEqual(["orders.read"]);
    expect(await reconcile.metric('converge_corrections_total{kind="Route",action="update"}')).toBe(1);
    expect(reconcile.stderr()).toContain(`update Route/${API_ID}/GET /orders: authorizationScopes ["orders.admin"] -> ["orders.read"]: done`);
    expect(reconcile.stderr()).not.toContain("admin-token");
    expect((await reconcile.request("/")).text).toContain("converge reconcile");
  });

  it("reports a change made by hand under --policy observe, and does not correct it", async () => {
    const { start, desired, env } = await fixture("observe", ALL);
    expect((await runCli(["apply", "-f", desired, "--auto-approve"], { env })).code).toBe(0);
    const getOrders = (await route("GET /orders"))!;
    await clients!.gateway.updateRoute(API_ID, getOrders.routeId, { authorizationScopes: ["orders.admin"] });
    const reconcile = await start(["--interval", "1s", "--policy", "observe"]);
    const status = await cycleAfter(reconcile, 2);
    expect(status.last!.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)).toMatchObject({ state: "drifted", withheld: { guard: "policy" } });
    expect(status.last!.result).toBe("drift");
    expect((await route("GET /orders"))!.authorizationScopes).toEqual(["orders.admin"]);
    expect(await reconcile.metric('converge_resources{kind="Route",state="drifted"}')).toBe(1);
    expect(await reconcile.metric('converge_reconcile_cycles_total{result="drift"}')).toBeGreaterThanOrEqual(3);

    // the status's resources are drift's, with the same identities and fields
    const drift = await runCli(["drift", "-f", desired, "--output", "json"], { env });
    expect(drift.code).toBe(2);
    const reported = (JSON.parse(drift.stdout) as { resources: unknown[] }).resources;
    const observed = (await reconcile.status()).last!.resources.map(({ state: _state, withheld: _withheld, ...resource }) => resource);
    expect(observed).toEqual(reported);
  });

  it("runs a cycle at once on POST /reconcile and on SIGHUP, however long the interval", async () => {
    const { start } = await fixture("triggers", ALL);
    const reconcile = await start(["--interval", "1h"]);
    const first = await cycleAfter(reconcile, 0);
    const posted = await reconcile.request("/reconcile", "POST");
    expect(posted.status).toBe(202);
    const second = await cycleAfter(reconcile, first.last!.cycle, 10_000);
    reconcile.child.kill("SIGHUP");
    const third = await cycleAfter(reconcile, second.last!.cycle, 10_000);
    expect(third.last!.result).toBe("success");
    expect(Date.parse(third.nextCycleAt!)).toBeGreaterThan(Date.now() + 30 * 60_000);
  });

  it("makes no write for a broken file or a checkout caught half-synced, and deletes a route removed on purpose", async () => {
    const { start, desired } = await fixture("guards", { "routes.yaml": FILES.routes, "contact.yaml": FILES.contact });
    const reconcile = await start(["--interval", "1s"]);
    let status = await cycleAfter(reconcile, 1);
    expect(status.last!.result).toBe("success");

    await writeFile(join(desired, "routes.yaml"), `${FILES.routes}---\nkind: Route\napi: ${API_ID}\nspec: {routeKey: [unclosed\n`);
    status = await cycleAfter(reconcile, status.last!.cycle);
    expect(status.last).toMatchObject({ result: "refused", guard: { guard: "desired-state" }, desiredState: { loaded: false } });
    expect(status.last!.desiredState.problems[0]!.file).toContain("routes.yaml");
    expect(await reconcile.metric("converge_desired_state_loaded")).toBe(0);

    // half-synced: the Api document that prunes arrived, the routes' file is still empty
    await writeFile(join(desired, "api.yaml"), FILES.api);
    await writeFile(join(desired, "routes.yaml"), "");
    status = await cycleAfter(reconcile, status.last!.cycle);
    expect(status.last!.writes).toEqual([]);
    await writeFile(join(desired, "routes.yaml"), FILES.routes);
    status = await cycleAfter(reconcile, status.last!.cycle + 1);
    expect((await liveOf(clients!)).routes.map((live) => live.routeKey).sort()).toEqual(["$default", "GET /orders", "POST /orders"]);

    await writeFile(join(desired, "routes.yaml"), FILES.routes.split("---\n").slice(0, 2).join("---\n"));
    await eventually("POST /orders deleted", async () => ((await route("POST /orders")) === undefined ? true : undefined));
    const deleted = await reconcile.status();
    expect(deleted.last!.result).toBe("success");
  });

  it("makes no write of a cycle over --max-changes, and says so in its status and metrics", async () => {
    const { start } = await fixture("budget", ALL);
    const reconcile = await start(["--interval", "1s", "--max-changes", "1"]);
    const status = await cycleAfter(reconcile, 0);
    expect(status.last).toMatchObject({ result: "refused", guard: { guard: "change-budget" } });
    expect(status.last!.writes).toEqual([]);
    expect((await liveOf(clients!)).routes.map((live) => live.routeKey)).toEqual(["$default"]);
    expect(await reconcile.metric('converge_guard_active{guard="change-budget"}')).toBe(1);
    expect(await reconcile.metric('converge_guard_refusals_total{guard="change-budget"}')).toBe(1);
  });

  it("ends a fight over a field as fighting after the set number of corrections", async () => {
    const { start } = await fixture("fight", { "routes.yaml": FILES.routes });
    const reconcile = await start(["--interval", "1s", "--fight-corrections", "3", "--fight-cycles", "20"]);
    let status = await cycleAfter(reconcile, 0);
    const getOrders = (await route("GET /orders"))!;
    // the other writer: puts its scopes back each time the reconciler corrected them
    for (;;) {
      await clients!.gateway.updateRoute(API_ID, getOrders.routeId, { authorizationScopes: ["orders.other"] });
      status = await cycleAfter(reconcile, status.last!.cycle);
      const state = status.last!.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)!.state;
      if (state === "fighting") break;
      expect(state).toBe("corrected");
    }
    expect(await reconcile.metric('converge_corrections_total{kind="Route",action="update"}')).toBe(3);
    expect(status.last!.resources.find((resource) => resource.address === `Route/${API_ID}/GET /orders`)!.withheld!.reason)
      .toContain("corrected 3 times within 20 cycles and changed back each time (authorizationScopes)");
    expect(await reconcile.metric('converge_resources{kind="Route",state="fighting"}')).toBe(1);
  });
});

describe("converge reconcile with --lock", () => {
  it("writes from one instance while another stands by, and the other takes over after a SIGKILL", async () => {
    const { start, directory } = await fixture("lock", ALL);
    const lock = join(directory, "reconcile.lock");
    const first = await start(["--interval", "1s", "--lock", lock]);
    await cycleAfter(first, 0);
    const second = await start(["--interval", "1s", "--lock", lock]);
    const standing = await eventually("the second standing by", async () => {
      const status = await second.status();
      return status.role === "standby" ? status : undefined;
    });
    expect(standing).toMatchObject({ ready: true, last: null });
    expect(await second.metric("converge_lock_held")).toBe(0);
    expect(await first.metric("converge_lock_held")).toBe(1);

    await first.stop("SIGKILL");
    const killedAt = Date.now();
    const took = await eventually("the second taking over", async () => {
      const status = await second.status();
      return status.role === "leader" && status.last ? status : undefined;
    }, 30_000);
    // the lock goes stale 10 s after its last refresh (every 5 s), and the standby tries every second
    expect(Date.now() - killedAt).toBeLessThan(12_000);
    expect(took.last!.result).toBe("success");
    expect(second.stderr()).toMatch(/standing by: the lock .* is held by "converge reconcile \(pid \d+/);
  }, 40_000);

  it("holds apply's lock during a cycle, so that an apply with the same lock waits for it", async () => {
    const { start, directory, desired, env } = await fixture("lock-apply", ALL, reconcilerWorld({ faults: { latencyMs: 400 } }));
    const lock = join(directory, "apply.lock");
    const reconcile = await start(["--interval", "1h", "--lock", lock]);
    await eventually("a cycle under way holding the lock", async () => (existsSync(lock) && readFileSync(lock, "utf8").includes("converge reconcile") ? true : undefined));
    const refused = await runCli(["apply", "-f", desired, "--auto-approve", "--lock", lock, "--lock-timeout", "0"], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("it is held by \"converge reconcile (pid");
    await cycleAfter(reconcile, 0, 30_000);
    const waited = await runCli(["apply", "-f", desired, "--auto-approve", "--lock", lock, "--lock-timeout", "30"], { env });
    expect(waited.code).toBe(0);
  }, 60_000);
});

describe("converge reconcile, stopping", () => {
  it("lets the writes under way finish on SIGTERM, starts no other, and exits 0 within 10 s with nothing half-written", async () => {
    const many = Array.from({ length: 24 }, (_, index) => `kind: Route\napi: ${API_ID}\nspec: {routeKey: GET /r${index}, authorizationType: NONE}\n`).join("---\n");
    const { start, desired, env } = await fixture("sigterm", { "routes.yaml": many }, reconcilerWorld({ faults: { latencyMs: 300 } }));
    const reconcile = await start(["--interval", "1h", "--parallelism", "4"]);
    await eventually("the first routes written", async () => ((await liveOf(clients!)).routes.length > 2 ? true : undefined), 30_000);
    const signalled = Date.now();
    const exit = await reconcile.stop("SIGTERM");
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(reconcile.stderr()).toContain("SIGTERM received: the writes under way finish, no other starts");

    const live = (await liveOf(clients!)).routes.filter((candidate) => !candidate.apiGatewayManaged);
    expect(live.length).toBeGreaterThan(0);
    expect(live.length).toBeLessThan(24);
    // every route that exists is whole (its fields as declared), and no key is there twice
    expect(live.every((candidate) => candidate.authorizationType === "NONE")).toBe(true);
    expect(new Set(live.map((candidate) => candidate.routeKey)).size).toBe(live.length);
    const plan = await runCli(["plan", "-f", desired, "--output", "json"], { env });
    const actions = (JSON.parse(plan.stdout) as { actions: Array<{ type: string }> }).actions;
    expect(actions.filter((action) => action.type === "update")).toEqual([]);
    expect(actions.filter((action) => action.type === "create")).toHaveLength(24 - live.length);
  }, 60_000);

  it("exits 1 naming the directory when its --lock cannot be taken at all", async () => {
    const { start, directory } = await fixture("no-lock-dir", ALL);
    const reconcile = await start(["--interval", "1s", "--lock", join(directory, "missing", "reconcile.lock")]);
    expect(await reconcile.exited).toEqual({ code: 1, signal: null });
    expect(reconcile.stderr()).toContain(`the directory ${join(directory, "missing")} does not exist`);
  });

  it("refuses standard input as its desired state, which a loop cannot read again", async () => {
    const result = await runCli(["reconcile", "-f", "-", "--once"], { env: { CONVERGE_ENDPOINT: "http://127.0.0.1:9", CONVERGE_TOKEN: "x" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("reconcile reads its desired state again every cycle, and standard input can be read once");
  });
});
