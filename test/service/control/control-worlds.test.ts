import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, type ControlClient, type TestWorld } from "../../../src/clients/index.js";
import { DEMO_WORLD, startService, type RunningService } from "../../../src/service/index.js";
import { expectAccountError, expectValidation } from "../../support/account-expect.js";
import { controlCall, controlOf } from "../../support/control.js";
import { call } from "../../support/http.js";
import { FAST_RETRY } from "../../support/world.js";

/**
 * Isolated worlds (docs/manual/testing.md, "Isolated worlds"): each its own state, identities, seed,
 * throttle and clock; a token belongs to exactly one world and a request sees only its world;
 * hundreds at once on one server, each reset alone, dropped when done.
 */

let service: RunningService;
let control: ControlClient;

beforeAll(async () => {
  service = await startService({ port: 0, world: { ...DEMO_WORLD, regionTransitionMs: 60_000 } });
  control = controlOf(service);
});
afterAll(async () => {
  await control.close();
  await service.close();
});

describe("200 isolated worlds at once", () => {
  it("keeps every world's writes, reads and journal to itself", { timeout: 120_000 }, async () => {
    const worlds = await Promise.all(Array.from({ length: 200 }, () => control.createWorld(undefined, { retry: FAST_RETRY })));
    expect(new Set(worlds.map((world) => world.id)).size).toBe(200);
    const tokens = worlds.flatMap((world) => world.tokens.map((each) => each.token));
    expect(new Set(tokens).size).toBe(tokens.length);
    try {
      // every world at once: an API named after itself, and its caller's security contact
      await Promise.all(worlds.map(async (world) => {
        const { gateway, account } = world.clients();
        await gateway.createApi({ name: `api-of-${world.id}`, protocolType: "HTTP" });
        await account.putAlternateContact({ AlternateContactType: "SECURITY", Name: world.id, Title: "t", EmailAddress: `${world.id}@example.com`, PhoneNumber: "+1 555 0100" });
      }));
      await Promise.all(worlds.map(async (world) => {
        const { gateway, account } = world.clients();
        const names = (await collect(gateway.apis())).map((api) => api.name).sort();
        expect(names, world.id).toEqual(["chat", "orders", `api-of-${world.id}`].sort());
        expect((await account.getAlternateContact({ AlternateContactType: "SECURITY" }))?.Name, world.id).toBe(world.id);
        const writes = await world.requests({ write: true });
        expect(writes.map((entry) => [entry.world, entry.operation, entry.status]), world.id).toEqual([
          [world.id, "CreateApi", 201], [world.id, "PutAlternateContact", 200],
        ]);
      }));
      // the server's own world saw none of it
      const serverApis = await call(service, "/v2/apis", { method: "GET", token: "demo-admin-token" });
      expect(serverApis.json.items.map((api: { name: string }) => api.name).sort()).toEqual(["chat", "orders"]);
      expect(await control.requests({ world: "default", write: true })).toEqual([]);
    } finally {
      await Promise.all(worlds.map((world) => world.drop()));
    }
    expect((await control.worlds()).map((world) => world.id)).toEqual(["default"]);
  });
});

describe("a world's tokens", () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await control.createWorld();
  });
  afterAll(async () => {
    await world?.drop().catch(() => undefined);
  });

  it("are new tokens for a copy of the server's world: the same accounts and allow-lists, the server's tokens not among them", async () => {
    expect(world.tokens.map(({ identity, accountId, allow }) => ({ identity, accountId, allow }))).toEqual(
      (DEMO_WORLD.identities ?? []).map((identity, index) => ({ identity: `identities[${index}]`, accountId: identity.accountId, allow: identity.allow })),
    );
    expect(world.tokens.map((each) => each.token).filter((token) => token.startsWith("demo-"))).toEqual([]);
    expect(world.tokens.every((each) => /^cvg-[A-Za-z0-9_-]{24}$/.test(each.token))).toBe(true);
  });

  it("are refused by the server's world and its tokens by this world: a request sees only its own world", async () => {
    await world.clients().gateway.createApi({ name: "only-here", protocolType: "HTTP" });
    const fromServer = await call(service, "/v2/apis", { method: "GET", token: "demo-admin-token" });
    expect(fromServer.json.items.map((api: { name: string }) => api.name)).not.toContain("only-here");
    const reader = world.token("identities[2]");
    const denied = await call(service, "/putAlternateContact", { token: reader, body: { AlternateContactType: "BILLING", Name: "n", Title: "t", EmailAddress: "a@b.c", PhoneNumber: "1" } });
    expectAccountError(denied, 403, "AccessDeniedException");
    expect(denied.json.message).toBe(`account ${DEMO_WORLD.identities![2]!.accountId} is not authorized to perform account:PutAlternateContact`);
  });

  it("stop working once the world is dropped; its journal entries stay readable", async () => {
    const dropped = await control.createWorld();
    const token = dropped.token();
    expect((await call(service, "/v2/apis", { method: "GET", token })).status).toBe(200);
    await dropped.drop();
    const refused = await call(service, "/v2/apis", { method: "GET", token });
    expect({ status: refused.status, errorType: refused.errorType, message: refused.json.message }).toEqual({
      status: 403, errorType: "AccessDeniedException", message: "the security token included in the request is invalid",
    });
    expect((await control.requests({ world: dropped.id })).map((entry) => entry.status)).toEqual([200]);
    expectAccountError(await controlCall(service, `worlds/${dropped.id}`, { method: "DELETE" }), 404, "ResourceNotFoundException");
  });
});

describe("a world of its own world file", () => {
  it("takes the tokens given, makes the missing ones, and names identities as the file does", async () => {
    const world = await control.createWorld({
      accounts: ["555555555555"],
      identities: [
        { name: "deployer", token: "a-token-of-this-world-only-0001", accountId: "555555555555", allow: ["apigateway:*"] },
        { name: "auditor", accountId: "555555555555", allow: ["apigateway:Get*"] },
      ],
      apis: [{ apiId: "fixedapi01", name: "fixed", protocolType: "HTTP" }],
    });
    try {
      expect(world.tokens.map(({ identity, token }) => [identity, token === "a-token-of-this-world-only-0001"])).toEqual([["deployer", true], ["auditor", false]]);
      const auditor = world.clients("auditor");
      expect((await auditor.gateway.getApi("fixedapi01"))?.name).toBe("fixed");
      await world.clients("deployer").gateway.createRoute("fixedapi01", { routeKey: "GET /x" });
      expect((await world.requests()).map((entry) => [entry.identity, entry.account, entry.operation])).toEqual([
        ["auditor", "555555555555", "GetApi"], ["deployer", "555555555555", "CreateRoute"],
      ]);
      // a token already some world's: refused, naming the field, and no world is made
      const before = (await control.worlds()).length;
      const taken = await controlCall(service, "worlds", { body: { world: { accounts: ["555555555555"], identities: [{ token: "a-token-of-this-world-only-0001", accountId: "555555555555" }] } } });
      expectAccountError(taken, 409, "ConflictException");
      expect(taken.json.message).toMatch(/^world\.identities\[0\]\.token is already the token of another world's identity/);
      const adminTaken = await controlCall(service, "worlds", { body: { world: { identities: [{ token: service.adminToken, accountId: "555555555555" }] } } });
      expectAccountError(adminTaken, 409, "ConflictException");
      expect(await control.worlds()).toHaveLength(before);
    } finally {
      await world.drop();
    }
  });

  it("refuses a world file that does not hold together, naming the fields", async () => {
    const refused = await controlCall(service, "worlds", { body: { world: {
      identities: [{ name: "twin", accountId: "555555555555" }, { name: "twin", accountId: "555555555555" }],
      faults: { stateFile: { failAfterWrites: 0, failingWrites: 1 } },
    } } });
    expectValidation(refused, ["world.identities[1].name", "world.faults.stateFile"]);
  });
});

describe("each world alone", () => {
  it("is reset alone: the other worlds and the server's keep their state", async () => {
    const [a, b] = await Promise.all([control.createWorld(), control.createWorld()]);
    try {
      await a.clients().gateway.createApi({ name: "kept-in-a", protocolType: "HTTP" });
      await b.clients().gateway.createApi({ name: "gone-from-b", protocolType: "HTTP" });
      await b.reset();
      expect((await collect(a.clients().gateway.apis())).map((api) => api.name)).toContain("kept-in-a");
      expect((await collect(b.clients().gateway.apis())).map((api) => api.name).sort()).toEqual(["chat", "orders"]);
      expect(await b.requests()).toHaveLength(1); // the listing just made; the journal of b was cleared by its reset
      expect((await a.requests()).length).toBeGreaterThan(1);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it("has a clock of its own: advancing it settles ENABLING without waiting, in that world only", async () => {
    const [a, b] = await Promise.all([control.createWorld(), control.createWorld()]);
    try {
      for (const world of [a, b]) await world.clients().account.enableRegion({ RegionName: "af-south-1" });
      const statusIn = async (world: TestWorld) => (await world.clients().account.getRegionOptStatus({ RegionName: "af-south-1" })).RegionOptStatus;
      expect([await statusIn(a), await statusIn(b)]).toEqual(["ENABLING", "ENABLING"]);
      const clock = await a.advanceClock(60_000);
      expect({ world: clock.world, offsetMs: clock.offsetMs }).toEqual({ world: a.id, offsetMs: 60_000 });
      expect(Date.parse(clock.now) - Date.now()).toBeGreaterThan(59_000);
      expect([await statusIn(a), await statusIn(b)]).toEqual(["ENABLED", "ENABLING"]);
      await a.clients().account.disableRegion({ RegionName: "af-south-1" });
      await a.advanceClock(60_000);
      expect(await statusIn(a)).toBe("DISABLED");
      // a reset brings the clock back with the state
      await a.reset();
      expect((await control.advanceClock(0, { world: a.id })).offsetMs).toBe(0);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  it("refuses to drop the server's own world", async () => {
    expectValidation(await controlCall(service, "worlds/default", { method: "DELETE" }), ["id"]);
  });
});
