import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCliResult, NODE_WARNING_LINE, runCli } from "../support/cli.js";
import { TempDirs, writeFiles } from "./e2e-fixture.js";

/**
 * converge speaks alone: input that makes one of its libraries warn (the yaml library, asked to
 * turn a mapping whose key is a collection into a JavaScript object, prints "Keys with collection
 * values will be stringified…" as a process warning unless told not to) gets converge's own error
 * and nothing else on stderr: every line is `converge: …` or one of its indented problems. runCli
 * (test/support/cli.ts) refuses a process warning in any command a test runs; this file runs the
 * cases that made one, each through every reader of YAML converge has, and states the rule itself,
 * so that it holds even if runCli's check were lost. Nothing is called: the endpoint refuses
 * connections, and every case fails before the first request.
 */

const dirs = new TempDirs();
let dir: string;

beforeAll(async () => {
  dir = await dirs.make("own-voice");
  await writeFiles(dir, {
    "estate.yaml": "kind: Route\napi: a1b2c3d4e5\nspec: {routeKey: GET /orders}\n",
    "collection-key.yaml": "kind: Route\napi: a1b2c3d4e5\nspec:\n  routeKey: GET /orders\n  ? [a, b]\n  : 1\n",
    "mapping-key.yaml": "kind: Route\napi: a1b2c3d4e5\nspec:\n  routeKey: GET /orders\n  ? {a: 1}\n  : 1\n",
    "collection-key-vars.yaml": "? [a, b]\n: 1\n",
    "collection-key-ignore.yaml": "- address: converge_route.*\n  reason:\n    ? [a]\n    : b\n",
  });
});
afterAll(async () => {
  await dirs.cleanup();
});

const CASES: ReadonlyArray<{ readonly name: string; readonly args: ReadonlyArray<string>; readonly says: string }> = [
  { name: "a list as a mapping key in a desired-state file (validate)", args: ["validate", "-f", "collection-key.yaml"], says: 'collection-key.yaml:3:1: spec["[ a, b ]"]: unknown field "[ a, b ]"' },
  { name: "a list as a mapping key in a desired-state file (plan)", args: ["plan", "-f", "collection-key.yaml"], says: 'unknown field "[ a, b ]"' },
  { name: "a mapping as a mapping key in a desired-state file", args: ["validate", "-f", "mapping-key.yaml"], says: 'unknown field "{ a: 1 }"' },
  { name: "a list as a mapping key in a variable file", args: ["plan", "-f", "estate.yaml", "--var-file", "collection-key-vars.yaml"], says: 'variable name ["a","b"] is not valid' },
  { name: "a list as a mapping key in ignore rules", args: ["drift", "-f", "estate.yaml", "--ignore", "collection-key-ignore.yaml"], says: 'collection-key-ignore.yaml:2: reason {"[ a ]":"b"} is not a reason' },
];

describe.concurrent("what converge prints when a library would warn", () => {
  it.each(CASES)("refuses $name with converge's own error only: no process warning of a library on stderr", async ({ args, says }) => {
    const result = await runCli(args, { cwd: dir, env: { CONVERGE_ENDPOINT: "http://127.0.0.1:9", CONVERGE_TOKEN: "tok-own-voice" }, allowProcessWarnings: true });
    expect(result.code, describeCliResult(result)).toBe(1);
    expect(result.stderr, describeCliResult(result)).toContain(says);
    expect(result.stderr, describeCliResult(result)).not.toMatch(NODE_WARNING_LINE);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.filter((line) => !/^(converge: |  \S)/.test(line)), describeCliResult(result)).toEqual([]);
  });
});
