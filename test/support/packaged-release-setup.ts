import { testRelease } from "../cli/release/release-fixture.js";

/**
 * A setup file of the `packaged` projects (vitest.config.ts): before a suite's file is imported, the
 * tests' release is there, packaged from this build of dist/ (testRelease: the first suite that asks
 * packages it under a lock, every other one waits for it and then finds it stamped), so that
 * converge's and the provider's executables are there when the suite asks for them
 * (convergeCommand, installSource), at its import included. The other files run meanwhile: nothing
 * waits for the packaging but what needs it.
 */
await testRelease();
