import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, isApiError, type ControlClient } from "../../../src/clients/index.js";
import { startService, type RunningService } from "../../../src/service/index.js";
import { rejectionOf } from "../../clients/client-fixtures.js";
import { controlCall, controlOf } from "../../support/control.js";
import { call } from "../../support/http.js";
import { expectWellFormedJournal, journalLine } from "../../support/journal.js";
import { clientsFor } from "../../support/world.js";
import { testWorld } from "../../support/worlds.js";

/**
 * Reset and checkpoints (docs/manual/testing.md): a world back to its seed, or to a checkpoint, while
 * requests run — those in flight finish first, none sees half of it; durable in the server's state
 * file; a checkpoint downloaded in the state file's format, which a start with `--state-file` takes,
 * and a file of another version refused with a clear message.
 */

const API = "resetapi01";
const world = testWorld({ apis: [{ apiId: API, name: "reset-me", protocolType: "HTTP", target: "https://backend.example" }] });
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "converge-control-reset-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Starts a service (durable in `stateFile` when given) with a control client; both closed by the returned function. */
async function started(stateFile?: string): Promise<{ service: RunningService; control: ControlClient; close(): Promise<void> }> {
  const service = await startService({ port: 0, world, ...(stateFile ? { stateFile } : {}) });
  const control = controlOf(service);
  return { service, control, close: async () => { await control.close(); await service.close(); } };
}

const routeKeys = async (service: RunningService): Promise<string[]> =>
  (await call(service, `/v2/apis/${API}/routes?maxResults=500`, { method: "GET" })).json.items.map((route: { routeKey: string }) => route.routeKey).sort();

describe("reset and restore while requests run", () => {
  it("lets every reader see the seed or the checkpoint, never a mix, through 20 resets and restores", { timeout: 60_000 }, async () => {
    const { service, control, close } = await started();
    try {
      const clients = clientsFor(service);
      for (const key of ["GET /a", "GET /b", "GET /c", "GET /d"]) await clients.gateway.createRoute(API, { routeKey: key });
      await clients.account.putAlternateContact({ AlternateContactType: "BILLING", Name: "n", Title: "t", EmailAddress: "b@example.com", PhoneNumber: "1" });
      await control.saveCheckpoint("four-routes");
      await control.reset();
      const seed = ["$default"];
      const checkpoint = ["$default", "GET /a", "GET /b", "GET /c", "GET /d"];
      expect(await routeKeys(service)).toEqual(seed);

      let switching = true;
      const seen: string[][] = [];
      const readers = Array.from({ length: 8 }, async () => {
        while (switching) {
          const [routes, contact] = await Promise.all([
            collect(clients.gateway.routes(API)),
            clients.account.getAlternateContact({ AlternateContactType: "BILLING" }),
          ]);
          const keys = routes.map((route) => route.routeKey).sort();
          seen.push(keys);
          // the contact and the routes belong to the same state when both reads ran between two switches: checked per listing below
          expect([seed, checkpoint]).toContainEqual(keys);
          expect(contact === undefined || contact.EmailAddress === "b@example.com").toBe(true);
        }
      });
      for (let i = 0; i < 10; i += 1) {
        await control.restoreCheckpoint("four-routes");
        await new Promise((resolve) => setTimeout(resolve, 5));
        await control.reset();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      switching = false;
      await Promise.all(readers);
      expect(seen.some((keys) => keys.length === seed.length)).toBe(true);
      expect(seen.some((keys) => keys.length === checkpoint.length)).toBe(true);
      await clients.close();
    } finally {
      await close();
    }
  });

  it("lets the requests in flight finish first: a slow create answered 201 is undone by the reset that waited for it", async () => {
    const { service, control, close } = await started();
    try {
      await control.addFault({ operation: "CreateRoute", calls: { nth: 1 }, effect: { latencyMs: 400 } });
      const slow = call(service, `/v2/apis/${API}/routes`, { body: { routeKey: "GET /slow" } });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const resetAt = performance.now();
      const reset = await control.reset({ world: "default" });
      const waited = performance.now() - resetAt;
      expect(reset).toEqual({ worlds: ["default"] });
      expect((await slow).status).toBe(201);
      expect(waited).toBeGreaterThanOrEqual(250);
      // the reset cleared the world's journal after the slow request was recorded; a rule for every world stays (spent)
      expect(await control.requests()).toEqual([]);
      expect((await control.faults()).map((rule) => [rule.world, rule.matched, rule.fired])).toEqual([[undefined, 1, 1]]);
      expect(await routeKeys(service)).toEqual(["$default"]);
    } finally {
      await close();
    }
  });
});

describe("a durable world", () => {
  it("writes its reset and its restored checkpoints to the state file: a restart keeps what was last applied", async () => {
    const stateFile = join(directory, "durable.state");
    const first = await started(stateFile);
    const clients = clientsFor(first.service);
    await clients.gateway.createRoute(API, { routeKey: "GET /before-reset" });
    await first.control.saveCheckpoint("one-route");
    await first.control.advanceClock(5_000);
    await first.control.reset();
    await clients.gateway.createRoute(API, { routeKey: "GET /after-reset" });
    await clients.close();
    await first.close();
    const lines = await expectWellFormedJournal(stateFile);
    expect(lines.filter((line) => line.snapshot !== undefined)).toHaveLength(1);

    const second = await started(stateFile);
    try {
      expect(await routeKeys(second.service)).toEqual(["$default", "GET /after-reset"]);
      // the clock was advanced before the reset, which brought it back with the state
      expect((await second.control.advanceClock(0)).offsetMs).toBe(0);
    } finally {
      await second.close();
    }
  });

  it("answers 500 and keeps the state as it was when the state file cannot take the reset", async () => {
    const stateFile = join(directory, "full-disk.state");
    const service = await startService({ port: 0, stateFile, world: { ...world, faults: { stateFile: { failAfterWrites: 1, failingWrites: 1, failure: "write" } } } });
    try {
      expect((await call(service, `/v2/apis/${API}/routes`, { body: { routeKey: "GET /kept" } })).status).toBe(201);
      const reset = await controlCall(service, "reset", { body: {} });
      expect({ status: reset.status, errorType: reset.errorType, message: reset.json.message }).toEqual({
        status: 500, errorType: "InternalServerException", message: "the change could not be saved to the state file (ENOSPC), so it was not applied; retry later",
      });
      expect(await routeKeys(service)).toEqual(["$default", "GET /kept"]);
      // the disk has room again: the reset goes through, and a restart reads the seed back
      expect((await controlCall(service, "reset", { body: {} })).status).toBe(200);
      expect(await routeKeys(service)).toEqual(["$default"]);
    } finally {
      await service.close();
    }
    const restarted = await startService({ port: 0, stateFile, world });
    try {
      expect(await routeKeys(restarted)).toEqual(["$default"]);
    } finally {
      await restarted.close();
    }
  });
});

describe("checkpoints as state files", () => {
  it("downloads a checkpoint that converge serve --state-file starts from, clock included", async () => {
    const { service, control, close } = await started();
    const file = join(directory, "downloaded.state");
    try {
      await clientsFor(service).gateway.createRoute(API, { routeKey: "GET /kept" });
      await control.advanceClock(90_000);
      const saved = await control.saveCheckpoint("kept");
      const text = await control.downloadCheckpoint("kept");
      expect(saved).toMatchObject({ name: "kept", world: "default", bytes: Buffer.byteLength(text) });
      expect(text).toMatch(/^[0-9a-f]{8} \{"converge":"state","version":2,"seq":0,"snapshot":\[/);
      const download = await controlCall(service, "checkpoints/kept", { method: "GET" });
      expect({ type: download.headers["content-type"], disposition: download.headers["content-disposition"] })
        .toEqual({ type: "text/plain; charset=utf-8", disposition: 'attachment; filename="kept.state"' });
      await writeFile(file, text);
    } finally {
      await close();
    }
    const restarted = await started(file);
    try {
      expect(await routeKeys(restarted.service)).toEqual(["$default", "GET /kept"]);
      expect((await restarted.control.advanceClock(0)).offsetMs).toBe(90_000);
    } finally {
      await restarted.close();
    }
    expect((await readFile(file, "utf8")).split("\n")[0]).toContain('"version":2');
  });

  it("takes a state file uploaded as a checkpoint, and restores it into another world", async () => {
    const { service, control, close } = await started();
    try {
      await clientsFor(service).gateway.createRoute(API, { routeKey: "GET /shared-fixture" });
      await control.saveCheckpoint("fixture");
      const text = await control.downloadCheckpoint("fixture");
      const uploaded = await control.uploadCheckpoint("fixture-copy", text);
      expect(uploaded).toMatchObject({ name: "fixture-copy", world: null });
      const worker = await control.createWorld();
      await worker.restoreCheckpoint("fixture-copy");
      expect((await collect(worker.clients().gateway.routes(API))).map((route) => route.routeKey).sort()).toEqual(["$default", "GET /shared-fixture"]);
      await worker.drop();
    } finally {
      await close();
    }
  });

  it.each<[string, string, RegExp]>([
    ["a file of a newer version", journalLine('{"converge":"state","version":3,"seq":0,"snapshot":[]}'), /line 1 \(byte 0\) is format version 3; expected version 2 or older: the file was written by a newer converge/],
    ["a line whose checksum does not match", `00000000 {"converge":"state","version":2,"seq":0,"snapshot":[]}\n`, /has checksum 00000000 but its content sums to/],
    ["text that is no state file", "hello\n", /begins with "hello"; expected a converge state file/],
    ["a route of an API that does not exist", journalLine('{"converge":"state","version":2,"seq":0,"snapshot":[["routes","nope/r1",{"route":{"routeId":"r1","routeKey":"GET /x","apiGatewayManaged":false},"seq":1}]]}'), /cannot be restored: holds route "r1" of API "nope", which does not exist/],
  ])("refuses to keep %s as a checkpoint, saying why, and keeps nothing", async (_label, text, message) => {
    const { control, close } = await started();
    try {
      const error = await rejectionOf(control.uploadCheckpoint("bad", text));
      expect(isApiError(error) && { status: error.status, errorName: error.errorName, fields: error.fieldList?.map((field) => field.name) })
        .toEqual({ status: 400, errorName: "ValidationException", fields: ["(body)"] });
      expect((error as Error).message).toMatch(message);
      const missing = await rejectionOf(control.downloadCheckpoint("bad"));
      expect(isApiError(missing) && missing.status).toBe(404);
    } finally {
      await close();
    }
  });

  it("answers 404 for a checkpoint never saved, and refuses a name that cannot be one", async () => {
    const { service, close } = await started();
    try {
      const missing = await controlCall(service, "checkpoints/never/restore", { body: {} });
      expect({ status: missing.status, errorType: missing.errorType, message: missing.json.message }).toEqual({
        status: 404, errorType: "ResourceNotFoundException", message: 'checkpoint "never" does not exist: save it first (PUT /_converge/checkpoints/never)',
      });
      const badName = await controlCall(service, "checkpoints/a%20b", { method: "PUT", body: {} });
      expect({ status: badName.status, fields: badName.json.fieldList.map((field: { name: string }) => field.name) }).toEqual({ status: 400, fields: ["name"] });
    } finally {
      await close();
    }
  });
});
