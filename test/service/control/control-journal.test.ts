import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { startService } from "../../../src/service/index.js";
import { controlCall, controlOf } from "../../support/control.js";
import { accountCall, call } from "../../support/http.js";
import { clientsFor, useWorld } from "../../support/world.js";
import { testWorld } from "../../support/worlds.js";

/**
 * The request journal (docs/manual/testing.md, "The request journal"): what each request of either
 * service was (world, operation, identity, account, status, latency, fault), never its token;
 * filtered and cleared; enough to assert "the code retried once after the 429" or "no write reached
 * the service"; a ring of the size asked for.
 */

const API = "journalap1";
const { service } = useWorld({ world: testWorld({ apis: [{ apiId: API, name: "journal", protocolType: "HTTP" }] }) });
const clients = () => clientsFor(service);

beforeEach(async () => {
  await controlCall(service, "reset", { body: {} });
});

describe("an entry", () => {
  it("holds the request's world, operation, identity, account, status, latency and fault, and never a token", async () => {
    await call(service, `/v2/apis/${API}`, { method: "GET", token: "member-token" });
    await accountCall(service, "ListRegions", {}, "nothing-token");
    await call(service, "/v2/apis", { method: "GET", token: "not-a-token-of-anyone" });
    await call(service, "/v2/nowhere", { method: "GET" });
    const answer = await controlCall(service, "requests", { method: "GET" });
    expect(answer.json.requests).toEqual([
      { time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), world: "default", service: "apigateway", operation: "GetApi", write: false, identity: "identities[1]", account: "222222222222", status: 404, latencyMs: expect.any(Number), fault: null },
      expect.objectContaining({ service: "account", operation: "ListRegions", identity: "identities[5]", account: "111111111111", status: 403 }),
      expect.objectContaining({ operation: "GetApis", identity: null, account: null, status: 403 }),
      expect.objectContaining({ service: "unknown", operation: "unknown", status: 404 }),
    ]);
    expect({ size: answer.json.size, evicted: answer.json.evicted }).toEqual({ size: 10_000, evicted: 0 });
    for (const token of ["member-token", "nothing-token", "not-a-token-of-anyone", "admin-token", service.adminToken!]) expect(answer.text).not.toContain(token);
  });
});

describe("what a test asserts with it", () => {
  it("shows that the code retried once after the 429", async () => {
    const control = controlOf(service);
    try {
      await control.addFault({ operation: "PutAlternateContact", calls: { nth: 1 }, effect: { status: 429, errorType: "TooManyRequestsException", retryAfterSeconds: 0 } });
      const account = clients().account;
      await account.putAlternateContact({ AlternateContactType: "OPERATIONS", Name: "Ops", Title: "On call", EmailAddress: "ops@example.com", PhoneNumber: "+1 555 0101" });
      const calls = await control.requests({ operation: "PutAlternateContact" });
      expect(calls.map((entry) => [entry.status, entry.fault?.effect ?? null])).toEqual([[429, "error"], [200, null]]);
      expect(await control.requests({ operation: "PutAlternateContact", status: 429 })).toHaveLength(1);
      expect(await control.requests({ fault: true })).toHaveLength(1);
    } finally {
      await control.close();
    }
  });

  it("shows that no write reached the service", async () => {
    const control = controlOf(service);
    try {
      const { gateway, account } = clients();
      await gateway.getApi(API);
      await account.getRegionOptStatus({ RegionName: "us-east-1" });
      expect(await control.requests({ write: true })).toEqual([]);
      expect((await control.requests({ write: false })).map((entry) => entry.operation)).toEqual(["GetApi", "GetRegionOptStatus"]);
    } finally {
      await control.close();
    }
  });
});

describe("reading and clearing", () => {
  it("filters by every field given and clears what a filter names, keeping the rest", async () => {
    await call(service, `/v2/apis/${API}`, { method: "GET" });
    await call(service, `/v2/apis/${API}`, { method: "GET", token: "member-token" });
    await accountCall(service, "ListRegions", {});
    const read = async (query: string) => (await controlCall(service, `requests${query}`, { method: "GET" })).json.requests.map((entry: { operation: string }) => entry.operation);
    expect(await read("?operation=GetApi&account=222222222222")).toEqual(["GetApi"]);
    expect(await read("?identity=identities%5B0%5D")).toEqual(["GetApi", "ListRegions"]);
    expect(await read("?status=200&world=default")).toEqual(["GetApi", "ListRegions"]);
    expect(await read("?status=404")).toEqual(["GetApi"]);
    const cleared = await controlCall(service, "requests?operation=GetApi", { method: "DELETE" });
    expect(cleared.json).toEqual({ removed: 2 });
    expect(await read("")).toEqual(["ListRegions"]);
    expect((await controlCall(service, "requests", { method: "DELETE" })).json).toEqual({ removed: 1 });
    expect(await read("")).toEqual([]);
  });
});

describe("its size", () => {
  const started: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(started.map((each) => each.close()));
  });

  it("holds the last `journalSize` requests and counts those it let go", async () => {
    const small = await startService({ port: 0, world: testWorld(), journalSize: 3 });
    started.push(small);
    for (let i = 0; i < 5; i += 1) await accountCall(small, "GetRegionOptStatus", { RegionName: i % 2 === 0 ? "us-east-1" : "eu-west-1" });
    const answer = (await controlCall(small, "requests", { method: "GET" })).json;
    expect({ held: answer.requests.length, size: answer.size, evicted: answer.evicted }).toEqual({ held: 3, size: 3, evicted: 2 });
  });

  it("keeps nothing with journalSize 0 (the journal off), while the services answer as before", async () => {
    const off = await startService({ port: 0, world: testWorld(), journalSize: 0 });
    started.push(off);
    expect((await accountCall(off, "ListRegions", {})).status).toBe(200);
    expect((await controlCall(off, "requests", { method: "GET" })).json).toEqual({ requests: [], size: 0, evicted: 0 });
  });

  it("refuses a journalSize that is not an integer from 0 to 1,000,000", async () => {
    await expect(startService({ port: 0, world: testWorld(), journalSize: -1 })).rejects.toThrow("journalSize -1 is not valid: expected an integer from 0 (no journal) to 1000000");
  });
});
