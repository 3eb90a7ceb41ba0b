import { describe, expect, it } from "vitest";
import { attachTestService, startTestService } from "../../src/testing/index.js";
import { testWorld } from "../support/worlds.js";

/** `converge/testing` (src/testing/index.ts): start the services in the test's process, or attach to running ones. */
describe("converge/testing", () => {
  it("starts the services on a free loopback port with a control client, and attaches to them by endpoint and admin token", async () => {
    const started = await startTestService({ world: testWorld() });
    try {
      expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await started.control.health()).status).toBe("ready");
      const attached = await attachTestService({ endpoint: started.url, adminToken: started.service.adminToken!, readyWithinMs: 2_000 });
      try {
        const world = await attached.createWorld();
        expect((await started.control.worlds()).map((each) => each.id)).toEqual(["default", world.id]);
        await world.drop();
      } finally {
        await attached.close();
      }
    } finally {
      await started.close();
    }
  });

  it("refuses to start services that would have no control interface, saying how to give them one", async () => {
    await expect(startTestService({ host: "0.0.0.0", world: testWorld() })).rejects.toThrow(/have no control interface: give an adminToken to listen on 0\.0\.0\.0/);
  });

  it("attaches through CONVERGE_ENDPOINT and CONVERGE_ADMIN_TOKEN, and fails when nothing answers there within the time given", async () => {
    const started = await startTestService({ world: testWorld() });
    const url = started.url;
    const saved = { endpoint: process.env.CONVERGE_ENDPOINT, token: process.env.CONVERGE_ADMIN_TOKEN };
    process.env.CONVERGE_ENDPOINT = url;
    process.env.CONVERGE_ADMIN_TOKEN = started.service.adminToken!;
    try {
      const attached = await attachTestService();
      expect((await attached.health()).status).toBe("ready");
      await attached.close();
    } finally {
      process.env.CONVERGE_ENDPOINT = saved.endpoint;
      process.env.CONVERGE_ADMIN_TOKEN = saved.token;
      if (saved.endpoint === undefined) delete process.env.CONVERGE_ENDPOINT;
      if (saved.token === undefined) delete process.env.CONVERGE_ADMIN_TOKEN;
      await started.close();
    }
    await expect(attachTestService({ endpoint: url, adminToken: "cvg-admin-nobody-here-0000000", readyWithinMs: 300 })).rejects.toThrow(/no answer from the service|ECONNREFUSED/);
  });
});
