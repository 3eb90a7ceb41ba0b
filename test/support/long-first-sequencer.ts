import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The suites that take longest (measured: docs/manual/contributing.md, "Where the time goes"), by
 * path from the package root: they start before every other file, so that the run does not end
 * waiting on one of them started last. Each counts in every project it is part of. A new suite of
 * more than some 20 s (on two cores) belongs here.
 *
 * Longest first, with one exception: a suite that mostly waits (its CPU a third of its wall time or
 * less: the reconciler's intervals, faults' deadlines) holds a worker while it waits, so the ones
 * after the first (two minutes under faults, in both projects) come after the suites that keep a
 * core busy. With the four waiting ones at the front, they held every worker of a two-core run
 * at once for some 40 s, one core idle (vmstat, 2026-12-06).
 */
export const LONG_SUITES: ReadonlyArray<string> = [
  // two minutes under faults, mostly waiting on the loop's backoff
  "test/e2e/cli-reconcile-faults.test.ts",
  // the suites that keep a core busy (CPU per wall time 0.4–1.25, measured with CONVERGE_TEST_CPU_LOG)
  "test/cli/release/reproducible-release.test.ts",
  "test/reconcile/concurrent-apply.test.ts",
  "test/demo/terraform-doc-commands.test.ts",
  "test/constructs/terraform-provider-lifecycle.test.ts",
  "test/e2e/cli-broken-input.test.ts",
  "test/cli/release/arm64-qemu.test.ts",
  "test/cli/release/cli-equivalence.test.ts",
  "test/demo/readme-commands.test.ts",
  "test/demo/testing-examples.test.ts",
  "test/e2e/cli-first-hour.test.ts",
  // waiting ones (the reconciler's intervals) among busy ones from here on
  "test/e2e/cli-reconcile.test.ts",
  "test/cli/release/provider-release.test.ts",
  "test/e2e/cli-hostile-endpoint.test.ts",
  "test/constructs/terraform-vehicle-switch.test.ts",
  "test/clients/clients-faults.test.ts",
  "test/constructs/terraform-lifecycle.test.ts",
  "test/provider/terraform-hostile-endpoint.test.ts",
  "test/constructs/example-app.test.ts",
  "test/demo/environments-examples.test.ts",
  "test/reconcile/crash.test.ts",
  "test/e2e/cli-hostile-input.test.ts",
  "test/provider/runtime/terraform.test.ts",
  "test/provider/terraform-changes.test.ts",
  "test/provider/terraform-protections.test.ts",
  "test/demo/continuous-reconcile-examples.test.ts",
  "test/e2e/reconcile-prometheus.test.ts",
];

/**
 * vitest's sequencer (vitest.config.ts, `sequence.sequencer`): vitest's own order (the files that
 * failed last, then the longest of the last run, which it remembers in node_modules/.vite; on a
 * fresh clone it remembers nothing and takes the largest files first), with LONG_SUITES moved to
 * the front in their order, so that a fresh clone (CI) starts the long suites first too.
 */
export class LongSuitesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = LONG_SUITES.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at < 0 ? LONG_SUITES.length : at;
    };
    return sorted.map((spec, index) => ({ spec, index, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.index - b.index).map(({ spec }) => spec);
  }
}
