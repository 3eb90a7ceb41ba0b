// The SDK code's tests: `npx vitest run --config examples/testing/sdk/vitest.config.mjs` (or, in a
// project of your own, `npx vitest run`). Against CONVERGE_ENDPOINT with CONVERGE_ADMIN_TOKEN when
// set (a converge serve a CI job started), else against services started in the test process.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ["*.test.mjs"],
    globalSetup: ["./global-setup.mjs"],
    testTimeout: 30_000,
  },
});
