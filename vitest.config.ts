import { defineConfig } from "vitest/config";

/**
 * The suites that run converge as a process (the CLI, `converge serve`, the provider under terraform):
 * vitest's `packaged` project runs them a second time against the release's single executables
 * (CONVERGE_TEST_CLI=packaged, CONVERGE_TEST_PROVIDER=packaged: test/support/converge-command.ts,
 * test/provider/terraform-fixture.ts), as a user who downloads them runs them.
 */
const PACKAGED_SUITES = [
  "test/e2e/*.test.ts",
  "test/drift/cli-*.test.ts",
  "test/export/export-cli.test.ts",
  "test/export/export-from-drift-cli.test.ts",
  "test/export/export-terraform.test.ts",
  "test/constructs/cli-*.test.ts",
  "test/constructs/example-app.test.ts",
  "test/constructs/terraform-*.test.ts",
  "test/reconcile/crash.test.ts",
  "test/service/durability.test.ts",
  "test/service/request-timeout.test.ts",
  "test/service/state-file-damage.test.ts",
  "test/service/state-file-disk-full.test.ts",
  "test/demo/scheduled-drift-examples.test.ts",
  "test/demo/environments-examples.test.ts",
  "test/demo/continuous-reconcile-examples.test.ts",
  "test/demo/readme-commands.test.ts",
  "test/demo/testing-examples.test.ts",
  "test/provider/terraform-*.test.ts",
];

/**
 * The suites that run converge as a process and cannot run against the executables, each with its
 * reason: the commands they test need a checkout of converge, and the single executable refuses them
 * by name (src/cli/release/single-executable.ts; test/cli/release/cli-executable.test.ts checks the
 * refusals). The release's own suites (test/cli/release) run `provider package` and test the
 * executables themselves.
 */
const NEEDS_A_CHECKOUT: Readonly<Record<string, string>> = {
  "test/e2e/cli-provider-install.test.ts": "provider install --wrapper installs the checkout's provider, a wrapper of this Node.js",
  "test/demo/demo.test.ts": "demo plans the checkout's examples/desired-state",
};

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: { name: "node", include: ["test/**/*.test.ts"], exclude: ["test/bench/**", "node_modules/**"] },
      },
      {
        extends: true,
        test: {
          name: "packaged",
          include: PACKAGED_SUITES,
          exclude: ["node_modules/**", ...Object.keys(NEEDS_A_CHECKOUT)],
          env: { CONVERGE_TEST_CLI: "packaged", CONVERGE_TEST_PROVIDER: "packaged" },
          // packages the tests' release before any suite of the project starts
          globalSetup: ["./test/support/packaged-release-setup.ts"],
        },
      },
    ],
  },
});
