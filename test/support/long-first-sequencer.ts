import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The suites that take longest (measured: docs/manual/contributing.md, "Where the time goes"),
 * longest first, by path from the package root: they start before every other file, so that the
 * run does not end waiting on one of them started last. Each counts in every project it is part of.
 * A new suite of more than some 20 s (on two cores) belongs here.
 */
export const LONG_SUITES: ReadonlyArray<string> = [
  // two minutes under faults, mostly waiting on the loop's backoff
  "test/e2e/cli-reconcile-faults.test.ts",
  "test/cli/release/reproducible-release.test.ts",
  "test/demo/readme-commands.test.ts",
  "test/e2e/cli-reconcile.test.ts",
  "test/demo/terraform-doc-commands.test.ts",
  "test/demo/testing-examples.test.ts",
  "test/e2e/cli-first-hour.test.ts",
  "test/constructs/terraform-provider-lifecycle.test.ts",
  "test/cli/release/arm64-qemu.test.ts",
  "test/cli/release/cli-equivalence.test.ts",
  "test/e2e/cli-hostile-endpoint.test.ts",
  "test/reconcile/concurrent-apply.test.ts",
  "test/clients/clients-faults.test.ts",
  "test/constructs/terraform-vehicle-switch.test.ts",
  "test/cli/release/provider-release.test.ts",
  "test/constructs/terraform-lifecycle.test.ts",
  "test/provider/terraform-hostile-endpoint.test.ts",
  "test/e2e/cli-broken-input.test.ts",
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
