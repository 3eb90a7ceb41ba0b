import { testRelease } from "../cli/release/release-fixture.js";

/**
 * vitest's global setup of the `packaged` project (vitest.config.ts): the tests' release is
 * packaged from this build of dist/ before any of its suites runs, so that converge's and the
 * provider's executables are there when a suite asks for them (convergeCommand, installSource).
 */
export async function setup(): Promise<void> {
  await testRelease();
}
