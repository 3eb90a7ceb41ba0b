import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_FILE_BYTES } from "../../src/desired/load.js";
import { describeCliResult, runCli } from "../support/cli.js";
import { E2E_TIMEOUT_MS, converge, expectExit, useE2eResources, writeFiles } from "./e2e-fixture.js";

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
    expect(result.stderr).toContain("missing.yaml:1:1: cannot read missing.yaml: ENOENT");
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
