// What every test file of this suite does first: take an isolated world of the services (a copy of
// their world, with tokens of its own) in beforeAll, bring it back to its seed before each test, and
// drop it after the file.
import { afterAll, beforeAll, beforeEach, inject } from "vitest";
import { ControlClient } from "converge/testing";

/** The file's world; its `gateway` and `account` clients are ready in the tests. */
export function useIsolatedWorld() {
  const handle = {};
  let control;
  beforeAll(async () => {
    control = new ControlClient({ endpoint: inject("convergeEndpoint"), adminToken: inject("convergeAdminToken") });
    handle.world = await control.createWorld(undefined, { retry: { baseDelayMs: 5, maxDelayMs: 50 } });
    Object.assign(handle, handle.world.clients());
  });
  beforeEach(() => handle.world.reset());
  afterAll(async () => {
    await handle.world?.drop();
    await control?.close();
  });
  return handle;
}
