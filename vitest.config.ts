import { availableParallelism } from "node:os";
import { globSync } from "tinyglobby";
import { defineConfig } from "vitest/config";
import { LongSuitesFirst } from "./test/support/long-first-sequencer.js";

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

/**
 * The suites that must not share the machine with any other, each with its reason: they run after
 * every other file, one at a time, on their own (the projects `node-alone` and `packaged-alone`).
 * Every other file runs beside others, which is the default for a new file. A suite belongs here only
 * when what it checks is the machine's own (a wall-clock budget that another suite's CPU would eat,
 * a resource of the machine that cannot be made per test), never to hide a defect: a suite that
 * fails beside others because of a shared port, directory, HOME or file, or a fixed sleep, is fixed
 * (docs/manual/contributing.md, "A suite that must run alone").
 */
const RUN_ALONE: Readonly<Record<string, string>> = {};

/**
 * Workers: twice the cores (at least 2, at most 16). Most suites spend their time waiting on the
 * processes they start (terraform, converge, the provider, packaging) and on deadlines of the
 * tests' own making, so that two cores stay busy only with more files than cores running at once
 * (measured: docs/manual/contributing.md). CONVERGE_TEST_WORKERS overrides it (as does vitest's
 * `--maxWorkers`).
 */
const WORKERS = Number(process.env.CONVERGE_TEST_WORKERS ?? Math.min(16, Math.max(2, availableParallelism() * 2)));

const alone = Object.keys(RUN_ALONE);
const packaged = new Set(globSync(PACKAGED_SUITES, { cwd: import.meta.dirname }));
const packagedAlone = alone.filter((file) => packaged.has(file));

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: WORKERS,
    // the long suites first (LONG_SUITES), so that a fresh clone does not end waiting on one started last
    sequence: { sequencer: LongSuitesFirst },
    setupFiles: ["./test/support/cpu-per-file.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: { name: "node", include: ["test/**/*.test.ts"], exclude: ["test/bench/**", "node_modules/**", ...alone] },
      },
      {
        extends: true,
        test: {
          name: "packaged",
          include: PACKAGED_SUITES,
          exclude: ["node_modules/**", ...Object.keys(NEEDS_A_CHECKOUT), ...alone],
          env: { CONVERGE_TEST_CLI: "packaged", CONVERGE_TEST_PROVIDER: "packaged" },
          // each file waits for the tests' release, packaged once from this build of dist/ by the first suite that asks for it
          setupFiles: ["./test/support/packaged-release-setup.ts"],
        },
      },
      // RUN_ALONE's suites: no file parallelism, so vitest runs them after every other file, one at a time
      {
        extends: true,
        test: { name: "node-alone", include: alone, fileParallelism: false },
      },
      {
        extends: true,
        test: {
          name: "packaged-alone",
          include: packagedAlone,
          fileParallelism: false,
          env: { CONVERGE_TEST_CLI: "packaged", CONVERGE_TEST_PROVIDER: "packaged" },
          setupFiles: ["./test/support/packaged-release-setup.ts"],
        },
      },
    ],
  },
});
