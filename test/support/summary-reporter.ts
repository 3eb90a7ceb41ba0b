import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one closing line `N passed, N failed[, N skipped]` after the run, the line CI reads.
 * Errors outside any test (unhandled rejections, files that fail to load, a file's hook that fails
 * after its tests passed) count as failures.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failedTests += 1;
        else skipped += 1;
      }
      // a file that failed with no test failed (it did not load, or a hook of the file failed) is one failure
      failed += module.state() === "failed" && failedTests === 0 ? 1 : failedTests;
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : "";
    process.stdout.write(`\n${passed} passed, ${failed} failed${tail}\n`);
  }
}
