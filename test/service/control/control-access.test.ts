import { afterAll, describe, expect, it } from "vitest";
import { packageVersion } from "../../../src/contract/package-version.js";
import { startService, WorldFileError } from "../../../src/service/index.js";
import { expectAccountError, expectValidation } from "../../support/account-expect.js";
import { controlCall, controlOf } from "../../support/control.js";
import { accountCall, call } from "../../support/http.js";
import { rejectionOf } from "../../clients/client-fixtures.js";
import { useWorld } from "../../support/world.js";
import { testWorld } from "../../support/worlds.js";

/**
 * Who may use the control interface (docs/manual/testing.md, "Access"): health without a token,
 * everything else only with the admin token, which no identity of any world is; off on an address
 * other machines reach unless a token is given. Bad input is refused in the services' error shape,
 * naming the field, and changes nothing.
 */

const { service } = useWorld();

describe("readiness", () => {
  it("answers health without a token before any other request: ready, with converge's version", async () => {
    const fresh = await startService({ port: 0, world: testWorld() });
    try {
      const health = await call(fresh, "/_converge/health", { method: "GET", token: null });
      expect({ status: health.status, json: health.json, type: health.headers["content-type"] }).toEqual({
        status: 200, json: { status: "ready", version: packageVersion() }, type: "application/json",
      });
      const listed = await accountCall(fresh, "ListRegions", { MaxResults: 1 });
      expect(listed.status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
});

describe("the admin token", () => {
  it("is made on a loopback address when none is given, and opens every control operation", async () => {
    expect(service.adminToken).toMatch(/^cvg-admin-[A-Za-z0-9_-]{32}$/);
    const faults = await controlCall(service, "faults", { method: "GET" });
    expect({ status: faults.status, json: faults.json }).toEqual({ status: 200, json: { faults: [] } });
  });

  it("is refused by both services: it is no identity of any world", async () => {
    expectAccountError(await accountCall(service, "ListRegions", {}, service.adminToken!), 403, "AccessDeniedException");
    const gateway = await call(service, "/v2/apis", { method: "GET", token: service.adminToken! });
    expect({ status: gateway.status, errorType: gateway.errorType }).toEqual({ status: 403, errorType: "AccessDeniedException" });
  });

  it.each<[string, string | null, RegExp]>([
    ["no token", null, /^missing credentials.*the control interface takes the admin token$/],
    ["a token of the server world's identity", "admin-token", /belongs to an identity of a world: the control interface takes only the admin token/],
    ["a token nobody has", "who-is-this-0123456789", /is not the admin token/],
  ])("refuses a control request with %s: 403 AccessDeniedException, and does nothing", async (_label, token, message) => {
    const added = await controlCall(service, "faults", { body: { calls: { every: true }, effect: { status: 500 } }, token });
    expectAccountError(added, 403, "AccessDeniedException");
    expect(added.json.message).toMatch(message);
    expect((await controlCall(service, "faults", { method: "GET" })).json.faults).toEqual([]);
  });

  it("refuses the tokens of a world made at run time too", async () => {
    const control = controlOf(service);
    try {
      const world = await control.createWorld();
      const refused = await controlCall(service, "requests", { method: "GET", token: world.token() });
      expectAccountError(refused, 403, "AccessDeniedException");
      expect(refused.json.message).toMatch(/belongs to an identity of a world/);
      await world.drop();
    } finally {
      await control.close();
    }
  });

  it("refuses to start when the admin token is also the token of an identity of the world", async () => {
    const error = await rejectionOf(startService({ port: 0, world: testWorld(), adminToken: "admin-token" }));
    expect(error).toBeInstanceOf(WorldFileError);
    expect((error as Error).message).toContain("identities[0].token is the control interface's admin token");
  });
});

describe("on an address other machines reach", () => {
  const started: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(started.map((each) => each.close()));
  });

  it("is off without an admin token: health still answers, every other operation is refused saying how to turn it on", async () => {
    const open = await startService({ host: "0.0.0.0", port: 0, world: testWorld() });
    started.push(open);
    expect(open.adminToken).toBeUndefined();
    const url = `http://127.0.0.1:${open.port}`;
    expect((await call(url, "/_converge/health", { method: "GET", token: null })).json.status).toBe("ready");
    const refused = await call(url, "/_converge/reset", { body: {}, token: "cvg-admin-guess-0123456789abcdef" });
    expectAccountError(refused, 403, "AccessDeniedException");
    expect(refused.json.message).toMatch(/^the control interface is off: .* --admin-token FILE \(or CONVERGE_ADMIN_TOKEN\)/);
  });

  it("is on with the admin token given", async () => {
    const token = "an-admin-token-given-by-the-test-0001";
    const open = await startService({ host: "0.0.0.0", port: 0, world: testWorld(), adminToken: token });
    started.push(open);
    expect(open.adminToken).toBe(token);
    const reset = await call(`http://127.0.0.1:${open.port}`, "/_converge/reset", { body: {}, token });
    expect({ status: reset.status, json: reset.json }).toEqual({ status: 200, json: { worlds: ["default"] } });
  });
});

describe("bad input", () => {
  it.each<[string, string, Record<string, unknown>, string[]]>([
    ["an operation neither service has", "faults", { operation: "CreateRouteX", effect: { status: 429 } }, ["operation"]],
    ["two call selectors at once", "faults", { operation: "CreateRoute", calls: { nth: 1, next: 2 }, effect: { status: 429 } }, ["calls.next"]],
    ["a seed without a probability", "faults", { calls: { every: true, seed: 3 }, effect: { status: 429 } }, ["calls.seed"]],
    ["an effect with nothing to do", "faults", { operation: "CreateRoute", effect: {} }, ["effect"]],
    ["a dropped answer that also answers an error", "faults", { effect: { dropAnswer: true, status: 500 } }, ["effect.dropAnswer"]],
    ["a status outside 400..599", "faults", { effect: { status: 200 } }, ["effect.status"]],
    ["an account that is not 12 digits", "faults", { account: "1234", effect: { status: 500 } }, ["account"]],
    ["a negative clock step", "clock", { advanceMs: -5 }, ["advanceMs"]],
    ["a world ID of the wrong shape", "reset", { world: "Not A World" }, ["world"]],
    ["a world file with a bad account and an unknown key", "worlds", { world: { accounts: ["12"], colour: "blue" } }, ["world.accounts[0]", "world.colour"]],
  ])("refuses %s: 400 ValidationException naming the field, nothing applied", async (_label, path, body, fields) => {
    const before = (await controlCall(service, "worlds", { method: "GET" })).json.worlds.length;
    const refused = await controlCall(service, path, { body });
    expectValidation(refused, fields);
    expect((await controlCall(service, "faults", { method: "GET" })).json.faults).toEqual([]);
    expect((await controlCall(service, "worlds", { method: "GET" })).json.worlds).toHaveLength(before);
    expect((await controlCall(service, "clock", { method: "GET" })).json.offsetMs).toBe(0);
  });

  it("refuses a journal query naming an unknown field or a status that is not one", async () => {
    expectValidation(await controlCall(service, "requests?status=teapot", { method: "GET" }), ["status"]);
    const unknown = await controlCall(service, "requests?colour=blue", { method: "GET" });
    expectValidation(unknown, ["colour"]);
    expect(unknown.json.message).toContain('unknown field "colour"');
  });

  it("refuses a body that is not JSON, and a world that does not exist", async () => {
    expectValidation(await controlCall(service, "reset", { raw: "{", headers: { "content-type": "application/json" } }), ["(body)"]);
    const missing = await controlCall(service, "reset", { body: { world: "w-000000000000" } });
    expectAccountError(missing, 404, "ResourceNotFoundException");
    expect(missing.json.message).toContain('world "w-000000000000" does not exist');
  });

  it("answers 404 for a path under /_converge/ that is no operation", async () => {
    const unknown = await controlCall(service, "teleport", { body: {} });
    expectAccountError(unknown, 404, "ResourceNotFoundException");
    expect(unknown.json.message).toBe("no control operation answers POST /_converge/teleport: see docs/manual/testing.md for the operations under /_converge/");
  });
});
