import { request } from "undici";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { FaultRuleRequest } from "../../../src/contract/control.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { controlCall, controlOf } from "../../support/control.js";
import { call } from "../../support/http.js";
import { useWorld } from "../../support/world.js";
import { testWorld } from "../../support/worlds.js";

/**
 * Scripted faults through the control interface (docs/manual/testing.md, "Scripted faults"): each
 * effect (an error of the service's own shape, a delay, a dropped answer, an error after the write)
 * and each call selector, on real HTTP requests, the same in every run; every injected fault marked
 * in the journal; the world file's faults listed as rules of the same engine.
 */

const API = "seededapi1";
const world = testWorld({ apis: [{ apiId: API, name: "seeded", protocolType: "HTTP" }] });
const { service } = useWorld({ world });
const control = () => controlOf(service);

beforeEach(async () => {
  expect((await controlCall(service, "reset", { body: {} })).status).toBe(200);
});

function createRoute(target: RunningService, routeKey: string, token = "admin-token") {
  return call(target, `/v2/apis/${API}/routes`, { body: { routeKey }, token });
}

async function addRule(rule: FaultRuleRequest, target: RunningService = service): Promise<string> {
  const added = await controlCall(target, "faults", { body: rule });
  expect(added.status, added.text).toBe(201);
  return added.json.id as string;
}

describe("an error of the service's own shape", () => {
  it("answers the second CreateRoute 429 with TooManyRequestsException, Retry-After and the body; the others succeed", async () => {
    const id = await addRule({ operation: "CreateRoute", calls: { nth: 2 }, effect: { status: 429, errorType: "TooManyRequestsException", retryAfterSeconds: 1 } });
    const first = await createRoute(service, "GET /one");
    const second = await createRoute(service, "GET /two");
    const third = await createRoute(service, "GET /two");
    expect([first.status, second.status, third.status]).toEqual([201, 429, 201]);
    expect({ errorType: second.errorType, retryAfter: second.headers["retry-after"], body: second.json }).toEqual({
      errorType: "TooManyRequestsException",
      retryAfter: "1",
      body: { __type: "TooManyRequestsException", message: `injected fault (rule ${id}): CreateRoute answered 429 as the rule asks` },
    });
    const journal = await controlCall(service, "requests?operation=CreateRoute", { method: "GET" });
    expect(journal.json.requests.map((entry: { status: number; fault: unknown }) => [entry.status, entry.fault])).toEqual([
      [201, null], [429, { rule: id, effect: "error" }], [201, null],
    ]);
    const rule = (await controlCall(service, `faults/${id}`, { method: "GET" })).json;
    expect({ matched: rule.matched, fired: rule.fired }).toEqual({ matched: 3, fired: 1 });
  });

  it("answers an account operation in the account's shape: errorType in the body, as the header", async () => {
    await addRule({ operation: "ListRegions", calls: { next: 1 }, effect: { status: 503, message: "down for a test" } });
    const refused = await call(service, "/listRegions", { body: {} });
    expect({ status: refused.status, errorType: refused.errorType, body: refused.json }).toEqual({
      status: 503, errorType: "ServiceUnavailableException", body: { __type: "ServiceUnavailableException", errorType: "ServiceUnavailableException", message: "down for a test" },
    });
    expect((await call(service, "/listRegions", { body: {} })).status).toBe(200);
  });

  it("acts only for the identity or the account it names", async () => {
    await addRule({ operation: "GetApi", identity: "identities[1]", calls: { every: true }, effect: { status: 403 } });
    await addRule({ operation: "GetApis", account: "444444444444", calls: { every: true }, effect: { status: 500 } });
    expect((await call(service, `/v2/apis/${API}`, { method: "GET", token: "member-token" })).status).toBe(403);
    expect((await call(service, `/v2/apis/${API}`, { method: "GET", token: "admin-token" })).status).toBe(200);
    expect((await call(service, "/v2/apis", { method: "GET", token: "standalone-token" })).status).toBe(500);
    expect((await call(service, "/v2/apis", { method: "GET", token: "admin-token" })).status).toBe(200);
  });

  it("answers after the write with afterWrite: the route exists though the answer was 500", async () => {
    await addRule({ operation: "CreateRoute", calls: { nth: 1 }, effect: { status: 500, afterWrite: true } });
    const failed = await createRoute(service, "GET /applied");
    expect({ status: failed.status, errorType: failed.errorType }).toEqual({ status: 500, errorType: "InternalServerException" });
    const routes = await call(service, `/v2/apis/${API}/routes`, { method: "GET" });
    expect(routes.json.items.map((route: { routeKey: string }) => route.routeKey)).toContain("GET /applied");
    const journal = await controlCall(service, "requests?operation=CreateRoute", { method: "GET" });
    expect(journal.json.requests[0].fault.effect).toBe("errorAfterWrite");
  });
});

describe("a delay", () => {
  it("delays the calls it acts on by latencyMs, and says so in the journal", async () => {
    const id = await addRule({ operation: "GetApis", calls: { next: 1 }, effect: { latencyMs: 250 } });
    const started = performance.now();
    expect((await call(service, "/v2/apis", { method: "GET" })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(245);
    expect((await call(service, "/v2/apis", { method: "GET" })).status).toBe(200);
    const entries = (await controlCall(service, "requests?operation=GetApis", { method: "GET" })).json.requests;
    expect(entries[0]).toMatchObject({ fault: { rule: id, effect: "latency" } });
    expect(entries[0].latencyMs).toBeGreaterThanOrEqual(245);
    expect(entries[1].fault).toBeNull();
  });
});

describe("a dropped answer", () => {
  it("applies the write, then closes the connection before any answer", async () => {
    const id = await addRule({ operation: "CreateRoute", calls: { nth: 1 }, effect: { dropAnswer: true } });
    const dropped = await request(`${service.url}/v2/apis/${API}/routes`, {
      method: "POST", headers: { authorization: "Bearer admin-token", "content-type": "application/json" }, body: JSON.stringify({ routeKey: "GET /dropped" }),
    }).then(() => "answered", (error: Error & { code?: string }) => error.code ?? error.message);
    expect(dropped).toMatch(/^UND_ERR_SOCKET$|other side closed/);
    const routes = await call(service, `/v2/apis/${API}/routes`, { method: "GET" });
    expect(routes.json.items.map((route: { routeKey: string }) => route.routeKey)).toContain("GET /dropped");
    const entries = (await controlCall(service, "requests?operation=CreateRoute", { method: "GET" })).json.requests;
    expect(entries).toEqual([expect.objectContaining({ status: 201, write: true, fault: { rule: id, effect: "dropAnswer" } })]);
  });
});

describe("a dropped answer of an error", () => {
  it("closes the connection instead of answering the operation's error", async () => {
    await addRule({ operation: "GetApi", calls: { nth: 1 }, effect: { dropAnswer: true } });
    const dropped = await request(`${service.url}/v2/apis/nosuchapi1`, { method: "GET", headers: { authorization: "Bearer admin-token" } })
      .then((answer) => `answered ${answer.statusCode}`, (error: Error & { code?: string }) => error.code ?? error.message);
    expect(dropped).toMatch(/^UND_ERR_SOCKET$|other side closed/);
    expect((await call(service, "/v2/apis/nosuchapi1", { method: "GET" })).status).toBe(404);
    const entries = (await controlCall(service, "requests?operation=GetApi", { method: "GET" })).json.requests;
    expect(entries.map((entry: { status: number; fault: { effect: string } | null }) => [entry.status, entry.fault?.effect ?? null])).toEqual([[404, "dropAnswer"], [404, null]]);
  });
});

describe("determinism", () => {
  const started: RunningService[] = [];
  afterAll(async () => {
    await Promise.all(started.map((each) => each.close()));
  });

  /** The statuses 40 sequential GetApi calls get on a fresh service with the rules given. */
  async function statusesOf(rules: ReadonlyArray<FaultRuleRequest>): Promise<number[]> {
    const fresh = await startService({ port: 0, world });
    started.push(fresh);
    for (const rule of rules) await addRule(rule, fresh);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) statuses.push((await call(fresh, `/v2/apis/${API}`, { method: "GET" })).status);
    return statuses;
  }

  it("acts on the same calls in every run, whatever the selector", async () => {
    const rules: FaultRuleRequest[] = [
      { operation: "GetApi", calls: { probability: 0.4, seed: 1234 }, effect: { status: 500 } },
      { operation: "GetApi", calls: { nth: 3 }, effect: { status: 429 } },
      { operation: "GetApi", calls: { next: 2 }, effect: { status: 503 } },
    ];
    const first = await statusesOf(rules);
    const second = await statusesOf(rules);
    expect(second).toEqual(first);
    expect(first.slice(0, 3)).toEqual([first[0] === 500 ? 500 : 503, first[1] === 500 ? 500 : 503, first[2] === 500 ? 500 : 429]);
    expect(first.filter((status) => status === 500).length).toBeGreaterThan(8);
    expect(first.filter((status) => status === 200).length).toBeGreaterThan(8);
  });
});

describe("rules through the control interface", () => {
  it("lists the rules with how often they matched and acted, removes one by ID and all at once", async () => {
    const control1 = control();
    try {
      const first = await control1.addFault({ operation: "GetApis", calls: { every: true }, effect: { latencyMs: 1 } });
      const second = await control1.addFault({ operation: "GetApi", effect: { status: 500 } });
      expect(second.calls).toEqual({ every: true });
      await call(service, "/v2/apis", { method: "GET" });
      expect((await control1.faults()).map((rule) => [rule.id, rule.matched, rule.fired])).toEqual([[first.id, 1, 1], [second.id, 0, 0]]);
      await control1.removeFault(first.id);
      expect((await control1.faults()).map((rule) => rule.id)).toEqual([second.id]);
      const missing = await controlCall(service, `faults/${first.id}`, { method: "DELETE" });
      expect({ status: missing.status, errorType: missing.errorType }).toEqual({ status: 404, errorType: "ResourceNotFoundException" });
      expect(await control1.removeFaults()).toBe(1);
      expect(await control1.faults()).toEqual([]);
    } finally {
      await control1.close();
    }
  });

  it("lists the world file's faults as rules of the same engine, which keep working as documented", async () => {
    const faulty = await startService({ port: 0, world: { ...world, faults: { errorRate: 1, latencyMs: 0, dropAfterWriteRate: 0 } } });
    try {
      const rules = (await controlCall(faulty, "faults", { method: "GET" })).json.faults;
      expect(rules).toEqual([expect.objectContaining({ id: "default-errorRate", source: "world", world: "default", calls: { probability: 1 } })]);
      const failed = await call(faulty, "/listRegions", { body: {}, token: "no-such-token" });
      expect({ status: failed.status, message: failed.json.message }).toEqual({ status: 500, message: "injected fault: the service failed before handling the request; retry later" });
      // removed like any rule: the service answers again; a reset brings the world's rules back
      expect((await controlCall(faulty, "faults/default-errorRate", { method: "DELETE" })).status).toBe(204);
      expect((await call(faulty, "/listRegions", { body: {} })).status).toBe(200);
      await controlCall(faulty, "reset", { body: {} });
      expect((await call(faulty, "/listRegions", { body: {} })).status).toBe(500);
    } finally {
      await faulty.close();
    }
  });
});
