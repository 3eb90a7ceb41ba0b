import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "./converge-command.js";
import { runProcess } from "./run-process.js";

/**
 * The closing line CI reads (summary-reporter.ts), from a real vitest run of files made to pass, fail,
 * skip, fail to load, and fail in a hook after their tests passed. The files stand in a directory
 * under the checkout's `.converge-test/` (so that they import vitest from its node_modules), with a
 * configuration of their own.
 */

let dir: string;

beforeAll(() => {
  mkdirSync(join(PACKAGE_ROOT, ".converge-test"), { recursive: true });
  dir = mkdtempSync(join(PACKAGE_ROOT, ".converge-test", "summary-reporter-"));
  const files: Record<string, string> = {
    "vitest.config.mjs": `export default { test: { include: ["*.check.ts"], reporters: [${JSON.stringify(join(PACKAGE_ROOT, "test/support/summary-reporter.ts"))}] } };\n`,
    "passes.check.ts": 'import { expect, it } from "vitest";\nit("passes", () => expect(1).toBe(1));\nit.skip("is skipped", () => {});\n',
    "fails.check.ts": 'import { expect, it } from "vitest";\nit("fails", () => expect(1).toBe(2));\nit("passes", () => expect(2).toBe(2));\n',
    "hook-fails.check.ts": 'import { afterAll, expect, it } from "vitest";\nafterAll(() => { throw new Error("the hook fails"); });\nit("passes first", () => expect(1).toBe(1));\n',
    "does-not-load.check.ts": 'import { it } from "vitest";\nthrow new Error("the file fails to load");\nit("never runs", () => {});\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the summary reporter", () => {
  it("closes with passed, failed (a failed test, a file that did not load, a hook that failed after its tests passed) and skipped", async () => {
    const run = await runProcess(process.execPath, [join(PACKAGE_ROOT, "node_modules/vitest/vitest.mjs"), "run", "--config", join(dir, "vitest.config.mjs"), "--root", dir], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/root", NO_COLOR: "1" },
      timeoutMs: 60_000,
    });
    expect(run.code, `${run.stdout}${run.stderr}`).toBe(1);
    expect(run.stdout.trimEnd().split("\n").at(-1), run.stdout).toBe("3 passed, 3 failed, 1 skipped");
  }, 60_000);
});
