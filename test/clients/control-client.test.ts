import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlClient, isApiError, isConvergeError, type ApiError } from "../../src/clients/index.js";
import { startService, type RunningService } from "../../src/service/index.js";
import { rejectionOf } from "./client-fixtures.js";
import { testWorld } from "../support/worlds.js";

/**
 * The control interface's typed client (src/clients/control-client.ts): answers checked against the
 * contract, errors typed as the services' clients type theirs, the admin token never in one; and the
 * world it hands out (TestWorld) scoping faults, journal and reset to that world.
 */

let service: RunningService;
let control: ControlClient;

beforeAll(async () => {
  service = await startService({ port: 0, world: testWorld() });
  control = new ControlClient({ endpoint: `${service.url}/some/path`, adminToken: service.adminToken! });
});
afterAll(async () => {
  await control.close();
  await service.close();
});

describe("ControlClient", () => {
  it("talks to the origin of the endpoint given, and waits until the services are ready", async () => {
    expect(control.endpoint).toBe(service.url);
    expect(await control.waitUntilReady(2_000)).toEqual({ status: "ready", version: expect.any(String) });
  });

  it("rejects with an ApiError of service control, naming the field, and never shows the admin token", async () => {
    const error = await rejectionOf(control.addFault({ operation: "CreateRoute", calls: { nth: 0 }, effect: { status: 429 } }));
    expect(isApiError(error)).toBe(true);
    const api = error as ApiError;
    expect({ service: api.service, operation: api.operation, status: api.status, errorName: api.errorName, fields: api.fieldList?.map((field) => field.name) })
      .toEqual({ service: "control", operation: "AddFault", status: 400, errorName: "ValidationException", fields: ["calls.nth"] });
    expect(`${api.message} ${JSON.stringify(api)}`).not.toContain(service.adminToken!);
  });

  it("rejects a wrong admin token with AccessDeniedException, the token shown nowhere", async () => {
    const wrong = new ControlClient({ endpoint: service.url, adminToken: "cvg-admin-wrong-token-0123456789" });
    try {
      const error = await rejectionOf(wrong.faults());
      expect(isApiError(error) && [error.status, error.errorName]).toEqual([403, "AccessDeniedException"]);
      expect(String(error)).not.toContain("cvg-admin-wrong-token-0123456789");
    } finally {
      await wrong.close();
    }
  });

  it("is made from CONVERGE_ENDPOINT and CONVERGE_ADMIN_TOKEN, and refuses to be made without them, naming the variable", async () => {
    const fromEnv = ControlClient.fromEnvironment({ CONVERGE_ENDPOINT: service.url, CONVERGE_ADMIN_TOKEN: service.adminToken });
    try {
      expect((await fromEnv.health()).status).toBe("ready");
    } finally {
      await fromEnv.close();
    }
    const noToken = (() => { try { ControlClient.fromEnvironment({ CONVERGE_ENDPOINT: service.url }); } catch (error) { return error; } return undefined; })();
    expect(isConvergeError(noToken) && (noToken as Error).message).toMatch(/^CONVERGE_ADMIN_TOKEN is not set/);
    const noEndpoint = (() => { try { ControlClient.fromEnvironment({ CONVERGE_ADMIN_TOKEN: "x" }); } catch (error) { return error; } return undefined; })();
    expect((noEndpoint as Error).message).toMatch(/^CONVERGE_ENDPOINT is not set/);
  });
});

describe("TestWorld", () => {
  it("scopes faults, the journal and reset to its world, and closes its clients when dropped", async () => {
    const world = await control.createWorld(undefined, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    const other = await control.createWorld();
    try {
      const rule = await world.addFault({ operation: "GetApis", calls: { every: true }, effect: { status: 500 } });
      expect(rule.world).toBe(world.id);
      const mine = world.clients();
      const theirs = other.clients();
      expect(isApiError(await rejectionOf(mine.gateway.apis().next()))).toBe(true);
      expect((await theirs.gateway.apis().next()).done).toBe(true);
      expect((await world.requests()).map((entry) => [entry.world, entry.status])).toEqual([[world.id, 500], [world.id, 500], [world.id, 500]]);
      expect((await other.requests()).map((entry) => entry.world)).toEqual([other.id]);
      await world.reset();
      expect(await control.faults()).toEqual([]);
      expect(await world.requests()).toEqual([]);
      expect((await mine.gateway.apis().next()).done).toBe(true);
      expect(() => world.token("nobody")).toThrow(`world ${world.id} has no identity "nobody": its identities are identities[0], identities[1], identities[2], identities[3], identities[4], identities[5]`);
    } finally {
      await world.drop();
      await other.drop();
    }
  });
});
