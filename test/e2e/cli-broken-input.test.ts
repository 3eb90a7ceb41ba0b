import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { describeCliResult, type CliResult } from "../support/cli.js";
import { BROKEN_CASES as CASES, CONTACT, HTTP_API, ORDERS_INTEGRATION, REGION, replaceLine, textOf, WEBSOCKET_API, type BrokenCase } from "./broken-input-cases.js";
import { withWorld } from "../support/world.js";
import { E2E_TIMEOUT_MS, TempDirs, converge, e2eService, expectExit, writeFiles } from "./e2e-fixture.js";

/**
 * Broken desired state, end to end: `validate` and `plan` both exit 1, name the file, the line and
 * the field path of every problem on stderr, and `plan` fails before calling the service at all.
 * Each case is its own file in a temp directory and runs concurrently with the others on its own
 * service, whose request count is compared before and after the plan.
 */

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The stderr line `  FILE:LINE:COLUMN: PATH: …MESSAGE…`, or `  FILE:LINE:COLUMN: MESSAGE…` when the problem has no field path. */
function problemLine(testCase: Pick<BrokenCase, "file" | "line" | "path" | "message">): RegExp {
  const location = `^  ${escapeRegExp(testCase.file)}:${testCase.line}:\\d+: `;
  if (testCase.path === null) return new RegExp(`${location}${escapeRegExp(testCase.message)}`, "m");
  return new RegExp(`${location}${escapeRegExp(testCase.path)}: .*${escapeRegExp(testCase.message)}`, "m");
}

function expectProblem(result: CliResult, testCase: BrokenCase): void {
  expect(result.code, describeCliResult(result)).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^converge: desired state is not valid \(\d+ problems?\):\n/);
  expect(result.stderr, describeCliResult(result)).toMatch(problemLine(testCase));
}

const dirs = new TempDirs();
let dir: string;

beforeAll(async () => {
  dir = await dirs.make("broken");
});
afterAll(async () => {
  await dirs.cleanup();
});

/** Runs `body` with a service of its own, closed afterwards. */
function withService(body: (service: RunningService) => Promise<void>): Promise<void> {
  return withWorld(e2eService(), ({ service }) => body(service));
}

describe.concurrent("broken desired state", { timeout: E2E_TIMEOUT_MS }, () => {
  it("has at least 25 distinct cases, each in its own file", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(CASES.map((testCase) => testCase.file)).size).toBe(CASES.length);
    expect(new Set(CASES.map((testCase) => testCase.name)).size).toBe(CASES.length);
  });

  it.each(CASES)("rejects $name: validate and plan exit 1 naming $file:$line and the field, with no request", (testCase) => withService(async (service) => {
    await writeFiles(dir, { [testCase.file]: textOf(testCase.lines) });

    const validated = await converge(service, ["validate", "-f", testCase.file], dir);
    expectProblem(validated, testCase);

    const before = service.requests.count();
    const planned = await converge(service, ["plan", "-f", testCase.file], dir);
    expectProblem(planned, testCase);
    expect(service.requests.count()).toBe(before);
    expect(before).toBe(0);
  }));

  it("reports every problem of a file with several in one run", () => withService(async (service) => {
    const file = "several.yaml";
    const lines = [
      ...HTTP_API, // 1-4
      ...replaceLine(CONTACT, 6, "  emailAddress: not-an-email"), // 5-11: email on 10
      "---", // 12
      "kind: Route", // 13
      "api: a1b2c3d4e5", // 14
      "spec:", // 15
      "  routeKey: get /orders", // 16
      "  target: {integration: nowhere}", // 17
      "---", // 18
      "kind: RegionOptIn", // 19
      'account: "1234"', // 20
      "spec: {region: ap-east-1, enabled: yes please}", // 21
      "---", // 22
      "kind: Lambda", // 23
    ];
    await writeFiles(dir, { [file]: textOf(lines) });
    const expected: BrokenCase[] = [
      { name: "email", file, lines, line: 10, path: "spec.emailAddress", message: "expected an email address" },
      { name: "route key", file, lines, line: 16, path: "spec.routeKey", message: "is not valid for an HTTP API" },
      { name: "dangling target", file, lines, line: 17, path: "spec.target.integration", message: 'target names integration "nowhere"' },
      { name: "account", file, lines, line: 20, path: "account", message: "expected exactly 12 digits" },
      { name: "enabled", file, lines, line: 21, path: "spec.enabled", message: "expected boolean" },
      { name: "kind", file, lines, line: 23, path: "kind", message: 'kind "Lambda" is not valid' },
    ];

    for (const command of ["validate", "plan"]) {
      const before = service.requests.count();
      const result = await converge(service, [command, "-f", file], dir);
      expect(result.code, describeCliResult(result)).toBe(1);
      expect(result.stderr).toContain(`desired state is not valid (${expected.length} problems)`);
      for (const problem of expected) expect(result.stderr, `${command}: ${problem.name}`).toMatch(problemLine(problem));
      expect(service.requests.count()).toBe(before);
    }
  }));

  it("accepts the same files once fixed (the cases are broken by the one thing they name)", () => withService(async (service) => {
    const fixed = "fixed.yaml";
    await writeFiles(dir, { [fixed]: textOf([...HTTP_API, ...WEBSOCKET_API, ...CONTACT, "---", ...ORDERS_INTEGRATION, "  timeoutInMillis: 50", "---", ...REGION]) });
    const validated = await converge(service, ["validate", "-f", fixed], dir);
    expectExit(validated, 0);
    expect(validated.stdout).toBe("5 documents in 1 file valid.\n");
    const planned = await converge(service, ["plan", "-f", fixed], dir);
    expectExit(planned, 2);
  }));
});

describe("files and directories", { timeout: E2E_TIMEOUT_MS }, () => {
  it("reports a path that does not exist, before any request", () => withService(async (service) => {
    const before = service.requests.count();
    const result = await converge(service, ["plan", "-f", join(dir, "missing.yaml")], dir);
    expectExit(result, 1);
    expect(result.stderr).toMatch(/^converge: cannot read the desired state \(1 problem\):\n.*missing\.yaml:1:1: cannot read .*missing\.yaml: no such file or directory \(ENOENT\)/);
    expect(service.requests.count()).toBe(before);
  }));
});
