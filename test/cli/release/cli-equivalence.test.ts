import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_FILE_BYTES } from "../../../src/desired/load.js";
import { MAX_NESTING_DEPTH } from "../../../src/input-limits/nesting.js";
import { DEMO_WORLD } from "../../../src/service/index.js";
import { copyExampleApp, synthExampleApp } from "../../constructs/example-app-fixture.js";
import { cdktfWorld } from "../../constructs/terraform-fixture.js";
import { BROKEN_CASES, textOf } from "../../e2e/broken-input-cases.js";
import { builtCliPath } from "../../support/converge-command.js";
import { runProcess, type ProcessResult } from "../../support/run-process.js";
import { useWorld } from "../../support/world.js";
import { PACKAGE_ROOT, PACKAGE_TIMEOUT_MS, testRelease } from "./release-fixture.js";

/**
 * The release's executable `converge` and converge on Node.js (`node dist/src/cli/main.js`) give the
 * same output for the same input: exit code, stdout and stderr, byte for byte but for the times a
 * report carries. Over the repository's desired-state examples against a served estate, the cdktf
 * example app's synth output, the broken documents of cli-broken-input.test.ts and hostile files
 * (too deep, too large, not text, truncated: the inputs the hostile-input suites try), and the
 * command line's own errors.
 */

const TOKEN = "demo-admin-token";
let cli: string;
let work: string;
const { service } = useWorld({ world: { ...DEMO_WORLD, regionTransitionMs: 0 } });
const { service: synthService } = useWorld({ world: cdktfWorld() });
let stackDir: string;
let app: string;

/** What a run printed, with the times a report carries (ISO timestamps, durations) made constant. */
function normalized(result: ProcessResult): { readonly code: number | null; readonly stdout: string; readonly stderr: string } {
  const steady = (text: string) => text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<duration>");
  return { code: result.code, stdout: steady(result.stdout), stderr: steady(result.stderr) };
}

/** Runs `converge ARGS` both ways in `cwd` (the executable first), with the same environment; expects the same output and returns it. */
async function expectSame(args: ReadonlyArray<string>, options: { readonly cwd?: string; readonly endpoint?: string } = {}) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: work, NO_COLOR: "1", ...(options.endpoint ? { CONVERGE_ENDPOINT: options.endpoint, CONVERGE_TOKEN: TOKEN } : {}) };
  const run = { cwd: options.cwd ?? work, env, timeoutMs: 60_000 };
  const packaged = normalized(await runProcess(cli, args, run));
  const node = normalized(await runProcess(process.execPath, [builtCliPath(), ...args], run));
  expect(packaged, `converge ${args.join(" ")}`).toEqual(node);
  return packaged;
}

beforeAll(async () => {
  cli = (await testRelease()).cli;
  work = mkdtempSync(join(tmpdir(), "converge-equivalence-"));
  app = await copyExampleApp();
  stackDir = await synthExampleApp(app, "main.ts", "cdktf.out", { CONVERGE_ENDPOINT: synthService.url });
}, PACKAGE_TIMEOUT_MS);

afterAll(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
  if (app) rmSync(app, { recursive: true, force: true });
});

describe("the release's converge and converge on Node.js give the same output", { timeout: 120_000 }, () => {
  it("reads a JSON document (the single executable once failed on every JSON input): 1 document in 1 file valid", async () => {
    writeFileSync(join(work, "one.json"), '{"kind": "Route", "api": "a1b2c3d4e5", "spec": {"routeKey": "GET /json-doc"}}\n');
    const result = await expectSame(["validate", "-f", "one.json"]);
    expect(result).toEqual({ code: 0, stdout: "1 document in 1 file valid.\n", stderr: "" });
  });

  it.each([
    ["validate"], ["plan"], ["plan", "--output", "json"], ["plan", "--output", "markdown"], ["drift"], ["drift", "--output", "json"], ["drift", "--output", "markdown"],
  ])("%s of the repository's examples/desired-state against the demo estate", async (...command) => {
    const result = await expectSame([...command, "-f", resolve(PACKAGE_ROOT, "examples/desired-state")], { endpoint: service.url });
    expect(result.code, result.stderr).toBe(command[0] === "validate" ? 0 : 2);
  });

  it("exports an API and an account of the demo estate", async () => {
    const result = await expectSame(["export", "--api", "a1b2c3d4e5", "--account", "self"], { endpoint: service.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("kind: Route");
  });

  it.each([["plan"], ["drift"], ["drift", "--output", "json"]])("%s --from-synth of the cdktf example app's synth output", async (...command) => {
    const result = await expectSame([...command, "--from-synth", stackDir], { endpoint: synthService.url });
    expect(result.code, result.stderr).toBe(2);
  });

  it.each(BROKEN_CASES)("refuses $name (cli-broken-input.test.ts's $file) with the same message", async (testCase) => {
    writeFileSync(join(work, testCase.file), textOf(testCase.lines));
    const result = await expectSame(["validate", "-f", testCase.file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${testCase.file}:${testCase.line}:`);
  });

  const deepJson = `${"[".repeat(MAX_NESTING_DEPTH + 10)}${"]".repeat(MAX_NESTING_DEPTH + 10)}`;
  const HOSTILE: ReadonlyArray<readonly [string, string, string | Buffer, ReadonlyArray<string>]> = [
    ["JSON nested past the loader's depth limit", "deep.json", deepJson, ["validate", "-f", "deep.json"]],
    ["YAML nested past the loader's depth limit", "deep.yaml", `a: ${"[".repeat(MAX_NESTING_DEPTH + 10)}${"]".repeat(MAX_NESTING_DEPTH + 10)}\n`, ["validate", "-f", "deep.yaml"]],
    ["a file past the loader's size limit", "huge.yaml", `# ${"x".repeat(MAX_FILE_BYTES)}\n`, ["validate", "-f", "huge.yaml"]],
    ["a file of bytes that are not UTF-8", "latin1.yaml", Buffer.from([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xe9, 0xff, 0x0a]), ["validate", "-f", "latin1.yaml"]],
    ["a file of NUL bytes", "binary.json", Buffer.alloc(4096), ["validate", "-f", "binary.json"]],
    ["a truncated JSON document", "truncated.json", '[{"kind": "RegionOptIn", "spec": {"region": "ap-east-1", "enabled": tr', ["validate", "-f", "truncated.json"]],
    ["JSON with a repeated key", "repeated.json", '{"kind": "RegionOptIn", "kind": "Route", "spec": {"region": "ap-east-1", "enabled": true}}', ["validate", "-f", "repeated.json"]],
    ["JSON with comments", "comments.json", '// a comment\n{"kind": "RegionOptIn", "spec": {"region": "ap-east-1", "enabled": true}}\n', ["validate", "-f", "comments.json"]],
    ["a truncated terraform state", "truncated.tfstate", '{"version": 4, "terraform_version": "1.11.4", "resources": [', ["drift", "--state", "truncated.tfstate"]],
    ["a state of another format version", "v3.tfstate", '{"version": 3, "resources": []}', ["drift", "--state", "v3.tfstate"]],
    ["a state that is not an object", "list.tfstate", "[1, 2, 3]", ["drift", "--state", "list.tfstate"]],
    ["a path that does not exist", "unused", "", ["validate", "-f", "nowhere.yaml"]],
  ];

  it.each(HOSTILE)("refuses %s with the same message, naming the file", async (_what, file, content, args) => {
    writeFileSync(join(work, file), content);
    const result = await expectSame(args);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^converge: /);
  });

  it.each([
    [["--version"], 0], [["-V"], 0], [["--version", "plan"], 0], [["--help"], 0], [["plan"], 1], [["plan", "-f", "one.json", "--parallelism", "many"], 1], [["frobnicate"], 1], [["drift", "--no-such-flag"], 1],
  ] as const)("answers the command line %j alike (exit %i)", async (args, code) => {
    const result = await expectSame(args);
    expect(result.code, result.stderr).toBe(code);
  });
});
