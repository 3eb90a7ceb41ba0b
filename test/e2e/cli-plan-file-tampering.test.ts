import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { call } from "../support/http.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, ORDERS_API, converge, createIntegrationOverHttp, createRouteOverHttp, expectExit, liveIntegrations, liveRoute, liveRoutes, useE2eResources, writeFiles, writeRequests } from "./e2e-fixture.js";

/**
 * `apply PLAN.json` applies a saved plan only when planning the file's own documents against the
 * live state now yields exactly the file's plan: every edit of a plan file is refused with nothing
 * sent (the service's request log shows no write), including edits that keep the fingerprint and
 * the summary consistent, and edits that would break a protection. The estate: the examples, plus
 * a `bystander` API no document owns, holding an integration a route targets and that a document
 * declares `ensure: absent` (so the plan holds a refused delete), and a `stranger` API no document
 * names at all.
 */

const { services, dirs } = useE2eResources();

interface Action {
  address: string;
  kind: string;
  type: string;
  name: string;
  identity: string;
  phase: number;
  changes: unknown[];
  reason?: string;
  request?: Record<string, unknown>;
  source?: unknown;
}
interface PlanFileJson {
  liveFingerprint: string;
  actions: Action[];
  summary: Record<string, number>;
  [field: string]: unknown;
}

let service: RunningService;
let dir: string;
let planFile: string;
let saved: PlanFileJson;
let bystander: { apiId: string; integrationId: string; routeId: string };
let stranger: { apiId: string; routeId: string };

async function createApi(name: string): Promise<string> {
  const created = await call(service, "/v2/apis", { body: { name, protocolType: "HTTP" }, token: ADMIN_TOKEN });
  expect(created.status, created.text).toBe(201);
  return created.json.apiId as string;
}

const clone = (plan: PlanFileJson): PlanFileJson => JSON.parse(JSON.stringify(plan)) as PlanFileJson;
const actionAt = (plan: PlanFileJson, address: string): Action => {
  const action = plan.actions.find((candidate) => candidate.address === address);
  expect(action, `action ${address} in ${plan.actions.map((a) => a.address).join(", ")}`).toBeDefined();
  return action!;
};
/** Recounts the summary, as a careful forger would. */
function recount(plan: PlanFileJson): PlanFileJson {
  const count = (type: string) => plan.actions.filter((action) => action.type === type).length;
  plan.summary = { create: count("create"), update: count("update"), delete: count("delete"), noop: count("no-op"), refused: count("refused") };
  return plan;
}

/** Writes the tampered plan, applies it, and expects a refusal with no write request sent. */
async function expectRefused(tampered: PlanFileJson, message: RegExp | string): Promise<string> {
  const file = join(await dirs.make("tampered"), "plan.json");
  await writeFile(file, `${JSON.stringify(tampered, null, 2)}\n`);
  service.requests.reset();
  const applied = await converge(service, ["apply", file, "--auto-approve"], dir);
  expectExit(applied, 1);
  if (typeof message === "string") expect(applied.stderr).toContain(message);
  else expect(applied.stderr).toMatch(message);
  expect(applied.stdout).not.toContain("Apply complete");
  expect(writeRequests(service), "write requests sent").toEqual([]);
  expect(service.requests.count(), "requests sent (live state is read to re-plan)").toBeGreaterThan(0);
  return applied.stderr;
}

const EDITED = "is not the plan its documents make against the live state now";

describe("apply PLAN.json refuses a plan file that is not what its documents plan now, sending nothing", { timeout: E2E_TIMEOUT_MS }, () => {
  beforeAll(async () => {
    service = await services.start();
    const bystanderApi = await createApi("bystander");
    const kept = await createIntegrationOverHttp(service, bystanderApi, { integrationType: "HTTP_PROXY", integrationUri: "https://kept.example/api", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
    const route = await createRouteOverHttp(service, bystanderApi, { routeKey: "GET /kept", target: `integrations/${kept.integrationId}` });
    bystander = { apiId: bystanderApi, integrationId: kept.integrationId, routeId: route.routeId };
    const strangerApi = await createApi("stranger");
    stranger = { apiId: strangerApi, routeId: (await createRouteOverHttp(service, strangerApi, { routeKey: "GET /mine" })).routeId };

    dir = await dirs.copyOfExamples();
    await writeFiles(dir, {
      "bystander.yaml": `kind: Integration\nname: kept\napi: ${bystanderApi}\nensure: absent\nspec: {integrationType: HTTP_PROXY, integrationUri: "https://kept.example/api"}\n`,
    });
    planFile = join(await dirs.make("plan"), "plan.json");
    expectExit(await converge(service, ["plan", "-f", ".", "--out", planFile], dir), 2);
    saved = JSON.parse(await readFile(planFile, "utf8")) as PlanFileJson;
    expect(actionAt(saved, `Integration/${bystanderApi}/kept`)).toMatchObject({ type: "refused", reason: expect.stringContaining("is still the target of route") });
  });

  it("refuses an added action: the delete of a route in an API no document names", async () => {
    const tampered = clone(saved);
    tampered.actions.push({
      address: `Route/${stranger.apiId}/GET /mine`, kind: "Route", type: "delete", name: "GET /mine", identity: `${stranger.apiId}/GET /mine`, phase: 3,
      changes: [], reason: "ensure: absent", request: { op: "deleteRoute", apiId: stranger.apiId, routeId: stranger.routeId },
    });
    const stderr = await expectRefused(recount(tampered), EDITED);
    expect(stderr).toContain(`action ${tampered.actions.length}, "delete" "Route/${stranger.apiId}/GET /mine", is in the file but not in the plan of its documents`);
    expect((await liveRoutes(service, stranger.apiId)).map((route) => route.routeKey)).toEqual(["GET /mine"]);
  });

  it("refuses a removed action", async () => {
    const tampered = clone(saved);
    const removed = tampered.actions.findIndex((action) => action.address === `Route/${ORDERS_API}/GET /orders`);
    tampered.actions.splice(removed, 1);
    const stderr = await expectRefused(recount(tampered), EDITED);
    expect(stderr).toContain(`action ${removed + 1} is`);
  });

  it("refuses an edited request body: an integration's URI", async () => {
    const tampered = clone(saved);
    const create = actionAt(tampered, `Integration/${ORDERS_API}/orders-backend`);
    expect(create.type).toBe("create");
    (create.request!.body as Record<string, unknown>).integrationUri = "https://attacker.example/collect";
    const stderr = await expectRefused(tampered, EDITED);
    expect(stderr).toContain(`"create" "Integration/${ORDERS_API}/orders-backend", differs in request`);
  });

  it("refuses an edited request body: a contact's email, with its displayed change edited to match", async () => {
    const tampered = clone(saved);
    const put = tampered.actions.find((action) => action.request?.op === "putContact")!;
    (put.request!.contact as Record<string, unknown>).EmailAddress = "attacker@example.com";
    for (const change of put.changes as Array<{ path: string; after: unknown }>) if (change.path === "emailAddress") change.after = "attacker@example.com";
    const stderr = await expectRefused(tampered, EDITED);
    expect(stderr).toMatch(/differs in (changes, )?request/);
  });

  it("refuses an edited protection: the service-managed $default route planned as a delete", async () => {
    const managed = await liveRoute(service, ORDERS_API, "$default");
    expect(managed.apiGatewayManaged).toBe(true);
    const tampered = clone(saved);
    const action = actionAt(tampered, `Route/${ORDERS_API}/$default`);
    Object.assign(action, { type: "delete", phase: 3, reason: "ensure: absent", request: { op: "deleteRoute", apiId: ORDERS_API, routeId: managed.routeId } });
    const stderr = await expectRefused(recount(tampered), EDITED);
    expect(stderr).toContain(`is "delete" "Route/${ORDERS_API}/$default" in the file, but its documents plan "no-op" "Route/${ORDERS_API}/$default"`);
    expect((await liveRoute(service, ORDERS_API, "$default")).routeId).toBe(managed.routeId);
  });

  it("refuses an edited protection: the refused delete of an integration a route targets, turned into a delete", async () => {
    const tampered = clone(saved);
    const action = actionAt(tampered, `Integration/${bystander.apiId}/kept`);
    delete action.reason;
    Object.assign(action, { type: "delete", reason: "ensure: absent", request: { op: "deleteIntegration", apiId: bystander.apiId, integrationId: bystander.integrationId } });
    const stderr = await expectRefused(recount(tampered), EDITED);
    expect(stderr).toContain(`is "delete" "Integration/${bystander.apiId}/kept" in the file, but its documents plan "refused" "Integration/${bystander.apiId}/kept"`);
    expect((await liveIntegrations(service, bystander.apiId)).map((integration) => integration.integrationId)).toEqual([bystander.integrationId]);
  });

  it("refuses an edited summary or an extra field, even with the actions intact", async () => {
    await expectRefused({ ...clone(saved), summary: { ...saved.summary, create: 0 } }, /summary is \{.*\} in the file, but \{.*\} in the plan of its documents/);
    await expectRefused({ ...clone(saved), execute: ["rm -rf /"] }, "the file has field execute, which no plan has");
  });

  it.each([["--prune"], ["--repair-twins"], ["--target", "Route/GET /orders"]])("refuses %s with a plan file: the plan fixed it", async (...flag) => {
    service.requests.reset();
    const applied = await converge(service, ["apply", planFile, "--auto-approve", ...flag], dir);
    expectExit(applied, 1);
    expect(applied.stderr).toContain(`--prune, --repair-twins and --target shape a plan: ${planFile} was made with its own`);
    expect(service.requests.count()).toBe(0);
  });

  it("refuses a forged fingerprint: an invented one as stale, and the current one copied from a newer plan as edited", async () => {
    await expectRefused({ ...clone(saved), liveFingerprint: "0".repeat(64) }, `live state changed since`);

    // live state changes (a stray route in the owned orders API: the plan of the same documents now prunes it)
    await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /stray" });
    const newer = join(await dirs.make("plan"), "newer.json");
    expectExit(await converge(service, ["plan", "-f", ".", "--out", newer], dir), 2);
    const current = JSON.parse(await readFile(newer, "utf8")) as PlanFileJson;
    expect(current.liveFingerprint).not.toBe(saved.liveFingerprint);
    const forged = { ...clone(saved), liveFingerprint: current.liveFingerprint };
    const stderr = await expectRefused(forged, EDITED);
    expect(stderr).toContain(`in the file, but its documents plan "delete" "Route/${ORDERS_API}/GET /stray"`);
    expect((await liveRoute(service, ORDERS_API, "GET /stray")).routeKey).toBe("GET /stray");

    // the newer plan, untouched, applies: its documents plan it exactly
    service.requests.reset();
    expectExit(await converge(service, ["apply", newer, "--auto-approve"], dir), 0);
    expect(writeRequests(service).filter((request) => request.operation === "DeleteRoute")).toHaveLength(1);
  });
});
