import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES } from "../../src/desired/load.js";
import { MAX_NESTING_DEPTH } from "../../src/input-limits/nesting.js";
import { describeCliResult, runCli } from "../support/cli.js";
import { E2E_TIMEOUT_MS, converge, expectExit, replaceInFile, useE2eResources, writeFiles } from "./e2e-fixture.js";

/**
 * Hostile or unusual input, tried on purpose: each case runs the compiled CLI with a time bound
 * (the process is killed, and the test fails, past it) and checks the exit code and the message,
 * which always names the file.
 */

const { services, dirs } = useE2eResources();

const REGION = (region: string, account?: string) => `kind: RegionOptIn\n${account ? `account: "${account}"\n` : ""}spec: {region: ${region}, enabled: true}\n`;

/** `converge ARGS` in `cwd` with no service, killed after `timeoutMs`. */
function offline(args: ReadonlyArray<string>, cwd: string, timeoutMs: number) {
  return runCli(args, { cwd, timeoutMs });
}

describe("hostile input", { timeout: E2E_TIMEOUT_MS * 2 }, () => {
  it("skips a FIFO in a directory passed to -f, with a warning naming it (it used to hang validate)", async () => {
    const dir = await dirs.make("fifo");
    await writeFiles(dir, { "regions.yaml": REGION("ap-east-1") });
    execFileSync("mkfifo", [join(dir, "pipe.yaml")]);
    const result = await offline(["validate", "-f", "."], dir, 15_000);
    expectExit(result, 0);
    expect(result.stdout).toBe("1 document in 1 file valid.\n");
    expect(result.stderr).toBe("converge: warning: skipped pipe.yaml: a FIFO (named pipe) is not a regular file\n");
  });

  it("skips symbolic links that lead nowhere or to a directory, and reads those that lead to a file", async () => {
    const dir = await dirs.make("links");
    await mkdir(join(dir, "outside"));
    await mkdir(join(dir, "walked"));
    await writeFiles(dir, { "outside/regions.yaml": REGION("ap-east-1"), "outside/more.yaml": REGION("me-south-1") });
    await symlink("../outside/regions.yaml", join(dir, "walked", "linked.yaml"));
    await symlink("nowhere.yaml", join(dir, "walked", "dangling.yaml"));
    await symlink("loop.yaml", join(dir, "walked", "loop.yaml"));
    await symlink("../outside", join(dir, "walked", "linked-dir"));
    const result = await offline(["validate", "-f", "walked"], dir, 15_000);
    expectExit(result, 0);
    expect(result.stdout).toBe("1 document in 1 file valid.\n");
    expect(result.stderr.split("\n").sort()).toEqual([
      "",
      "converge: warning: skipped walked/dangling.yaml: a symbolic link that leads nowhere (ENOENT)",
      "converge: warning: skipped walked/linked-dir: a symbolic link to a directory (not followed)",
      "converge: warning: skipped walked/loop.yaml: a symbolic link that leads nowhere (ELOOP)",
    ]);
  });

  it("ignores empty documents: a trailing ---, a document of comments only, an empty file", async () => {
    const dir = await dirs.make("empty-documents");
    await writeFiles(dir, {
      "trailing.yaml": `${REGION("ap-east-1")}---\n`,
      "comments.yaml": `# a header\n---\n# nothing declared here\n---\n${REGION("me-south-1")}---\n# the end\n`,
      "empty.yaml": "",
      "only-comments.yaml": "# yaml-language-server: $schema=./converge.schema.json\n# nothing yet\n",
    });
    const result = await offline(["validate", "-f", "."], dir, 15_000);
    expectExit(result, 0);
    expect(result.stdout).toBe("2 documents in 4 files valid.\n");
  });

  it("plans an export of an API and an account that has nothing to declare (a document of comments only)", async () => {
    const service = await services.start({
      accounts: ["123456789012"],
      identities: [{ token: "hostile-token", accountId: "123456789012", allow: ["*"] }],
      regions: [{ regionName: "us-east-1", optStatus: "ENABLED_BY_DEFAULT" }],
      apis: [{ apiId: "quick00001", name: "quick", protocolType: "HTTP", target: "https://backend.example/api" }],
    });
    const dir = await dirs.make("export-plan");
    const exported = await converge(service, ["export", "--api", "quick00001", "--account", "self"], dir, "hostile-token");
    expectExit(exported, 0);
    // the account's part holds only comments: no contact, no opt-in Region
    expect(exported.stdout).toMatch(/---\n(#[^\n]*\n)+$/);
    await writeFile(join(dir, "estate.yaml"), exported.stdout);
    const planned = await converge(service, ["plan", "-f", "estate.yaml"], dir, "hostile-token");
    expectExit(planned, 0);
  });

  it("loads one file of 200,000 documents", async () => {
    const dir = await dirs.make("many-documents");
    const documents = Array.from({ length: 200_000 }, (_, i) => REGION(`r-${i}`));
    await writeFiles(dir, { "many.yaml": documents.join("---\n") });
    const result = await offline(["validate", "-f", "many.yaml"], dir, 90_000);
    expectExit(result, 0);
    expect(result.stdout).toBe("200000 documents in 1 file valid.\n");
  });

  it("refuses a file over the size limit before reading it, naming the file and the limit", async () => {
    const dir = await dirs.make("too-large");
    const line = `${REGION("ap-east-1")}---\n`;
    await writeFiles(dir, { "huge.yaml": line.repeat(Math.ceil((MAX_FILE_BYTES + 1) / line.length)), "small.yaml": REGION("me-south-1") });
    const result = await offline(["validate", "-f", "."], dir, 15_000);
    expectExit(result, 1);
    expect(result.stderr).toContain(`huge.yaml:1:1: huge.yaml is 16.0 MiB: desired-state files are limited to ${MAX_FILE_BYTES / 1024 / 1024} MiB each; split it into several files`);
  });

  it("refuses a YAML alias bomb and a document that contains itself, naming the file and line", async () => {
    const dir = await dirs.make("aliases");
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 8 }, (_, i) => {
      const name = String.fromCharCode(98 + i);
      const previous = String.fromCharCode(97 + i);
      return `${name}: &${name} [${Array.from({ length: 10 }, () => `*${previous}`).join(", ")}]`;
    })];
    await writeFiles(dir, {
      "bomb.yaml": `${REGION("ap-east-1")}---\nkind: Api\napi: a1b2c3d4e5\n${levels.join("\n")}\n`,
      "cycle.yaml": "kind: Api\napi: &self [*self]\n",
    });
    const result = await offline(["validate", "-f", "."], dir, 15_000);
    expectExit(result, 1);
    expect(result.stderr).toContain("bomb.yaml:4:1: the document's YAML aliases expand to more than 10000 values (an alias bomb?)");
    expect(result.stderr).toContain("cycle.yaml:1:1: a YAML alias refers to a node that contains it");
  });

  it("names the file of every problem it cannot parse: binary garbage, a NUL byte, a missing path, an unreadable entry", async () => {
    const dir = await dirs.make("garbage");
    await mkdir(join(dir, "state"));
    await writeFile(join(dir, "state", "garbage.yaml"), Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256)));
    await writeFile(join(dir, "state", "nul.yaml"), "kind: Api\napi: a1b2c3d4e5\u0000\n");
    const result = await offline(["validate", "-f", "state", "-f", "missing.yaml"], dir, 15_000);
    expectExit(result, 1);
    const lines = result.stderr.split("\n").filter((line) => line.startsWith("  "));
    expect(lines.length, describeCliResult(result)).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(line).toMatch(/^ {2}(state\/garbage\.yaml|state\/nul\.yaml|missing\.yaml):\d+:\d+: /);
    expect(result.stderr).toContain("missing.yaml:1:1: cannot read missing.yaml: no such file or directory (ENOENT); check the path");
  });
});

/**
 * Issue 21: lists and mappings nested deeper than MAX_NESTING_DEPTH. Every parser converge uses
 * recurses once per level; `[` 100,000 times is 100 KB, far below the file size limit. Block
 * nesting by indentation costs its depth squared in bytes (5,800 levels reach 16 MiB), so it is
 * tried at 2,000 levels; the compact block forms (`- - -`, `? ? ?`) and flow collections at 10,000
 * and 100,000.
 */
describe("nesting", { timeout: E2E_TIMEOUT_MS * 2 }, () => {
  const PROBLEM = `nested too deeply: a list or mapping opens at level ${MAX_NESTING_DEPTH + 1}; expected lists and mappings nested at most ${MAX_NESTING_DEPTH} levels deep`;
  const lists = (levels: number, inner = "") => `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;
  const objects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  const mappings = (levels: number) => `${"{a: ".repeat(levels)}1${"}".repeat(levels)}`;
  const GOOD = REGION("ap-east-1");
  const BAD = REGION("me-south-1", "12345678901");

  /** Each case: a file, and where its nesting passes the limit (`line:column`). */
  const cases: ReadonlyArray<{ name: string; file: string; text: () => string; at: string }> = [10_000, 100_000].flatMap((levels) => [
    { name: `a JSON file of lists ${levels} deep`, file: "deep.json", text: () => lists(levels), at: `1:${MAX_NESTING_DEPTH + 1}` },
    { name: `one document of a JSON array nesting objects ${levels} deep`, file: "deep.json", text: () => `[\n{"kind": "Api", "api": "a1b2c3d4e5"},\n{"kind": "Api", "api": ${objects(levels)}}\n]\n`, at: `3:${"{\"kind\": \"Api\", \"api\": ".length + 5 * (MAX_NESTING_DEPTH - 2) + 1}` },
    { name: `a YAML file of flow lists ${levels} deep`, file: "deep.yaml", text: () => `kind: Api\napi: ${lists(levels)}\n`, at: `2:${"api: ".length + MAX_NESTING_DEPTH}` },
    { name: `one YAML document of several nesting flow mappings ${levels} deep`, file: "deep.yaml", text: () => `${GOOD}---\nkind: Api\napi: ${mappings(levels)}\n---\n${BAD}`, at: `5:${"api: ".length + 4 * (MAX_NESTING_DEPTH - 1) + 1}` },
    { name: `one YAML document of several nesting compact sequences ${levels} deep`, file: "deep.yaml", text: () => `${GOOD}---\n${"- ".repeat(levels)}x\n---\n${BAD}`, at: `4:${2 * MAX_NESTING_DEPTH + 1}` },
    { name: `a YAML file of explicit keys ${levels} deep`, file: "deep.yaml", text: () => `${"? ".repeat(levels)}x\n`, at: `1:${2 * MAX_NESTING_DEPTH + 1}` },
  ]).concat([
    { name: "a YAML document nesting block mappings 2,000 deep by indentation", file: "deep.yaml", text: () => `${GOOD}---\n${Array.from({ length: 2_000 }, (_, i) => `${" ".repeat(i)}a:\n`).join("")}---\n${BAD}`, at: `${4 + MAX_NESTING_DEPTH}:${MAX_NESTING_DEPTH + 1}` },
    { name: "a YAML document nesting mappings and sequences 2,000 deep", file: "deep.yaml", text: () => Array.from({ length: 1_000 }, (_, i) => `${"  ".repeat(i)}- a:\n`).join(""), at: `${MAX_NESTING_DEPTH / 2 + 1}:${MAX_NESTING_DEPTH + 1}` },
  ]);

  it.each(cases)("refuses $name at its file, line and column, with the limit, within the time bound", async ({ file, text, at }) => {
    const dir = await dirs.make("deep");
    await writeFiles(dir, { [file]: text() });
    const result = await offline(["validate", "-f", file], dir, 15_000);
    expectExit(result, 1);
    expect(result.stderr).toContain(`  ${file}:${at}: ${PROBLEM}\n`);
    expect(result.stderr).not.toContain("call stack");
  });

  it("refuses one deep document of several and still reads the others (their problems are listed too)", async () => {
    const dir = await dirs.make("deep-among-others");
    await writeFiles(dir, { "estate.yaml": `${GOOD}---\nkind: Api\napi: ${lists(100_000)}\n---\n${BAD}` });
    const result = await offline(["validate", "-f", "estate.yaml"], dir, 15_000);
    expectExit(result, 1);
    expect(result.stderr.split("\n")).toEqual([
      "converge: desired state is not valid (2 problems):",
      `  estate.yaml:5:${"api: ".length + MAX_NESTING_DEPTH}: ${PROBLEM}`,
      "  estate.yaml:8:1: account: account \"12345678901\" is not valid: expected exactly 12 digits",
      "",
    ]);
  });

  it("reads a document nested exactly to the limit, and refuses one level more", async () => {
    const dir = await dirs.make("deep-enough");
    // the document's mapping is level 1, its spec level 2
    const nested = (levels: number) => `kind: Api\napi: a1b2c3d4e5\nspec: {prune: true, x: ${lists(levels)}}\n`;
    await writeFiles(dir, { "limit.yaml": nested(MAX_NESTING_DEPTH - 2), "over.yaml": nested(MAX_NESTING_DEPTH - 1) });
    const result = await offline(["validate", "-f", "."], dir, 15_000);
    expectExit(result, 1);
    expect(result.stderr.split("\n")).toEqual([
      "converge: desired state is not valid (2 problems):",
      "  limit.yaml:3:21: spec.x: unknown field \"x\"",
      `  over.yaml:3:${"spec: {prune: true, x: ".length + MAX_NESTING_DEPTH - 1}: ${PROBLEM}`,
      "",
    ]);
  });

  it("refuses a document whose YAML aliases nest it deeper than the limit, though its text does not", async () => {
    const dir = await dirs.make("deep-aliases");
    const half = MAX_NESTING_DEPTH / 2 + 1;
    await writeFiles(dir, { "aliases.yaml": `kind: Api\napi: a1b2c3d4e5\nfirst: &deep ${lists(half, "x")}\nsecond: ${lists(half, "*deep")}\n` });
    const result = await offline(["validate", "-f", "aliases.yaml"], dir, 15_000);
    expectExit(result, 1);
    expect(result.stderr).toContain(`aliases.yaml:1:1: nested too deeply once its YAML aliases are expanded: a list or mapping opens at level ${MAX_NESTING_DEPTH + 1}; expected lists and mappings nested at most ${MAX_NESTING_DEPTH} levels deep`);
  });

  it("refuses deep desired state before any call: plan, apply and drift (-f and --from-synth) send nothing", async () => {
    const service = await services.start();
    const dir = await dirs.make("deep-online");
    await mkdir(join(dir, "synth"));
    await writeFiles(dir, { "deep.yaml": `${GOOD}---\n${"- ".repeat(100_000)}x\n`, "synth/converge.desired.json": lists(100_000) });
    for (const args of [["plan", "-f", "deep.yaml"], ["apply", "-f", "deep.yaml", "--auto-approve"], ["drift", "-f", "deep.yaml"], ["plan", "--from-synth", "synth"], ["apply", "--from-synth", "synth", "--auto-approve"], ["drift", "--from-synth", "synth"]]) {
      const result = await converge(service, args, dir);
      expectExit(result, 1);
      expect(result.stderr, args.join(" ")).toContain(PROBLEM);
    }
    expect(service.requests.count()).toBe(0);
  });

  it("refuses a plan file, a drift report and --document-env nested too deeply, naming where, and sends nothing", async () => {
    const service = await services.start();
    const dir = await dirs.make("deep-json-inputs");
    await writeFiles(dir, { "regions.yaml": GOOD });
    expectExit(await converge(service, ["plan", "-f", "regions.yaml", "--out", "plan.json"], dir), 2);
    const drift = await converge(service, ["drift", "-f", "regions.yaml", "--output", "json"], dir);
    expectExit(drift, 2);
    await writeFiles(dir, { "report.json": drift.stdout.replace('"desired":', `"desired":${lists(100_000, "")},"x":`) });
    await replaceInFile(join(dir, "plan.json"), '"spec": {', `"spec": {"x": ${objects(100_000)},`);
    service.requests.reset();

    const applied = await converge(service, ["apply", "plan.json", "--auto-approve"], dir);
    expectExit(applied, 1);
    expect(applied.stderr).toMatch(new RegExp(`^converge: plan\\.json:\\d+:\\d+: ${PROBLEM.replace(/[.;]/g, "\\$&")}\\n$`));
    const merged = await offline(["drift-merge", "report.json"], dir, 15_000);
    expectExit(merged, 1);
    expect(merged.stderr).toMatch(/^converge: report\.json:\d+:\d+: nested too deeply/);
    const env = await runCli(["apply", "--document-env", "DOC", "--auto-approve"], { cwd: dir, timeoutMs: 15_000, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: "demo-admin-token", DOC: `{"kind": "Api", "api": ${lists(10_000)}}` } });
    expectExit(env, 1);
    expect(env.stderr).toBe(`converge: --document-env DOC: $DOC:1:${'{"kind": "Api", "api": '.length + MAX_NESTING_DEPTH}: ${PROBLEM}\n`);
    expect(service.requests.count()).toBe(0);
  });

  it("refuses a world file nested too deeply (converge serve --world), naming the file and where", async () => {
    const dir = await dirs.make("deep-world");
    await writeFiles(dir, { "world.json": `{"apis": ${lists(100_000)}}` });
    const result = await offline(["serve", "--port", "0", "--world", "world.json"], dir, 15_000);
    expectExit(result, 1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`world world.json is not valid:\n  - line 1, column ${'{"apis": '.length + MAX_NESTING_DEPTH}: ${PROBLEM}`);
  });
});

describe("problem lists", { timeout: E2E_TIMEOUT_MS * 2 }, () => {
  /** One mistake repeated in 4,040 documents: a Region opt-in's account ID of 11 digits. */
  async function brokenEstate(): Promise<string> {
    const dir = await dirs.make("broken-estate");
    await writeFiles(dir, { "regions.yaml": Array.from({ length: 4_040 }, (_, i) => REGION(`r-${i}`, "12345678901")).join("---\n") });
    return dir;
  }

  it("lists the first 50 problems in text output and says how many more there are", async () => {
    const dir = await brokenEstate();
    const result = await offline(["validate", "-f", "."], dir, 30_000);
    expectExit(result, 1);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("converge: desired state is not valid (4040 problems):");
    expect(lines.slice(1, 51).every((line) => /^ {2}regions\.yaml:\d+:\d+: account: /.test(line))).toBe(true);
    expect(lines[51]).toBe("  … and 3990 more (--output json lists every problem)");
    expect(lines).toHaveLength(52);
  });

  it("lists every problem with --output json, on stdout (plan, before any call)", async () => {
    const service = await services.start();
    const dir = await brokenEstate();
    const result = await converge(service, ["plan", "-f", ".", "--output", "json"], dir);
    expectExit(result, 1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string; problems: Array<{ file: string; line: number; path: string; message: string }> } };
    expect(error.code).toBe("CONVERGE_DESIRED_STATE");
    expect(error.message).toBe("desired state is not valid (4040 problems)");
    expect(error.problems).toHaveLength(4_040);
    expect(error.problems[4_039]).toMatchObject({ file: "regions.yaml", line: 4_039 * 4 + 2, path: "account" });
    expect(service.requests.count()).toBe(0);
    const validated = await offline(["validate", "-f", ".", "--output", "json"], dir, 30_000);
    expect((JSON.parse(validated.stdout) as { error: { problems: unknown[] } }).error.problems).toHaveLength(4_040);
  });
});
