import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { runCli, type CliResult } from "../support/cli.js";
import { call } from "../support/http.js";
import {
  ADMIN_TOKEN,
  E2E_TIMEOUT_MS,
  ORDERS_API,
  converge,
  createRouteOverHttp,
  expectExit,
  liveRoute,
  useE2eResources,
  writeFiles,
} from "../e2e/e2e-fixture.js";
import { ORDERS_LINES, parseDriftJson, resourceAt } from "./support/drift-fixture.js";

/**
 * Ignore rules end to end: `converge drift --ignore FILE` and `.convergeignore.yaml` of the working
 * directory, run as a subprocess against the embedded service holding an API with one drifted, one
 * missing and one unmanaged route (and the service's own, refused); refusals before any request;
 * and `converge drift-ignore`, whose baseline makes the next run exit 0.
 */

const { services, dirs } = useE2eResources();
let service: RunningService;
/** The desired state. */
let estate: string;
const ORDERS = () => join(estate, "orders.yaml");

const ORDERS_YAML = [...ORDERS_LINES, ""].join("\n");

const DRIFTED = `Route/${ORDERS_API}/POST /orders`;
const MISSING = `Route/${ORDERS_API}/DELETE /orders/{id}`;
const UNMANAGED = `Route/${ORDERS_API}/GET /stray`;

/** `converge drift -f orders.yaml ARGS` in `cwd` (a directory of the test's own, for its ignore files). */
function drift(cwd: string, args: ReadonlyArray<string>): Promise<CliResult> {
  return runCli(["drift", "-f", ORDERS(), ...args], { cwd, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, GITHUB_STEP_SUMMARY: undefined } });
}

/** A fresh working directory holding `files`. */
async function workdir(files: Record<string, string>): Promise<string> {
  const cwd = await dirs.make("drift-ignore");
  await writeFiles(cwd, files);
  return cwd;
}

beforeAll(async () => {
  service = await services.start();
  estate = await dirs.make("drift-ignore-estate");
  await writeFiles(estate, { "orders.yaml": ORDERS_YAML });
  expectExit(await converge(service, ["apply", "-f", "orders.yaml", "--auto-approve"], estate), 0);
  const post = await liveRoute(service, ORDERS_API, "POST /orders");
  const patched = await call(service, `/v2/apis/${ORDERS_API}/routes/${post.routeId}`, { method: "PATCH", token: ADMIN_TOKEN, body: { authorizationScopes: ["orders.admin"] } });
  expect(patched.status, patched.text).toBe(200);
  const removed = await liveRoute(service, ORDERS_API, "DELETE /orders/{id}");
  const deleted = await call(service, `/v2/apis/${ORDERS_API}/routes/${removed.routeId}`, { method: "DELETE", token: ADMIN_TOKEN });
  expect(deleted.status, deleted.text).toBe(204);
  await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /stray" });
  const plain = await drift(estate, ["--output", "json"]);
  expectExit(plain, 2);
  expect(parseDriftJson(plain).summary).toMatchObject({ drifted: 1, missing: 1, unmanaged: 1, ignored: 0 });
}, E2E_TIMEOUT_MS);

describe("converge drift --ignore", { timeout: E2E_TIMEOUT_MS }, () => {
  it("marks the findings a rule accepts with its file, line and reason, keeps them in the report, and leaves them out of the exit code", async () => {
    const cwd = await workdir({
      "scopes.yaml": [
        "# the IdP rewrites scopes",
        `- address: "Route/${ORDERS_API}/*"`,
        "  fields: [authorizationScopes]",
        "  reason: the IdP rotates scopes nightly",
        "",
      ].join("\n"),
      "routes.yaml": [
        `- address: "Route/${ORDERS_API}/* /orders/{id}"`,
        "  outcomes: [missing]",
        "  reason: retired, the document goes next sprint",
        `- address: "Route/${ORDERS_API}/*"`,
        `  except: ["Route/${ORDERS_API}/GET /stray"]`,
        "  outcomes: [unmanaged]",
        "  reason: never reached for the stray route",
        "",
      ].join("\n"),
    });
    const partly = await drift(cwd, ["--ignore", "scopes.yaml", "--ignore", "routes.yaml", "--output", "json", "--report", "drift.md"]);
    expectExit(partly, 2);
    const report = parseDriftJson(partly);
    expect(resourceAt(report, DRIFTED).ignoredBy).toEqual({ file: "scopes.yaml", line: 2, reason: "the IdP rotates scopes nightly" });
    expect(resourceAt(report, MISSING).ignoredBy).toEqual({ file: "routes.yaml", line: 1, reason: "retired, the document goes next sprint" });
    expect(resourceAt(report, UNMANAGED).ignoredBy).toBeUndefined();
    expect(report.summary).toMatchObject({ drifted: 0, missing: 0, unmanaged: 1, ignored: 2 });
    expect(partly.stderr).toBe("converge: ignore rules: scopes.yaml (1 rule), routes.yaml (2 rules); 2 findings ignored\n");
    expect(await readFile(join(cwd, "drift.md"), "utf8")).toContain("POST /orders");

    await writeFile(join(cwd, "stray.yaml"), `- {address: "${UNMANAGED}", reason: made by hand for a demo}\n`);
    const all = await drift(cwd, ["--ignore", "scopes.yaml", "--ignore", "routes.yaml", "--ignore", "stray.yaml"]);
    expectExit(all, 0);
    expect(all.stderr).toBe("converge: ignore rules: scopes.yaml (1 rule), routes.yaml (2 rules), stray.yaml (1 rule); 3 findings ignored\n");
    expect(all.stdout).toContain(UNMANAGED);
  });

  it("does not ignore a drifted resource when another field differs than the rule lists", async () => {
    const cwd = await workdir({ "other.yaml": `- {address: "${DRIFTED}", fields: [authorizerId], reason: other field}\n` });
    const result = await drift(cwd, ["--ignore", "other.yaml", "--output", "json"]);
    expectExit(result, 2);
    expect(resourceAt(parseDriftJson(result), DRIFTED).ignoredBy).toBeUndefined();
  });

  it("reads .convergeignore.yaml of the working directory first, then the --ignore files", async () => {
    const cwd = await workdir({
      ".convergeignore.yaml": `- {address: "Route/${ORDERS_API}/*", outcomes: [drifted, missing], reason: from the working directory}\n`,
      "later.yaml": `- {address: "*", reason: from --ignore}\n`,
    });
    const alone = await drift(cwd, ["--output", "json"]);
    expectExit(alone, 2);
    expect(resourceAt(parseDriftJson(alone), DRIFTED).ignoredBy).toEqual({ file: ".convergeignore.yaml", line: 1, reason: "from the working directory" });
    expect(alone.stderr).toBe("converge: ignore rules: .convergeignore.yaml (1 rule); 2 findings ignored\n");
    const both = await drift(cwd, ["--ignore", "later.yaml", "--ignore", ".convergeignore.yaml", "--output", "json"]);
    expectExit(both, 0);
    const report = parseDriftJson(both);
    expect(resourceAt(report, MISSING).ignoredBy!.file).toBe(".convergeignore.yaml");
    expect(resourceAt(report, UNMANAGED).ignoredBy!.file).toBe("later.yaml");
    // "*" with the default outcomes takes the refused ones too (the service's $default route and its integration)
    expect(report.resources.filter((resource) => resource.outcome === "refused").map((resource) => resource.ignoredBy?.file)).toEqual(["later.yaml", "later.yaml"]);
    expect(both.stderr).toBe("converge: ignore rules: .convergeignore.yaml (1 rule), later.yaml (1 rule); 5 findings ignored\n");
  });

  it("warns of a rule past its until and does not apply it", async () => {
    const cwd = await workdir({
      "dated.yaml": [
        `- address: "${UNMANAGED}"`,
        "  reason: gone by 2020",
        "  until: 2020-01-31",
        `- address: "Route/${ORDERS_API}/*"`,
        "  reason: until far ahead",
        "  outcomes: [drifted, missing]",
        "  until: 2999-12-31",
        "",
      ].join("\n"),
    });
    const result = await drift(cwd, ["--ignore", "dated.yaml", "--output", "json"]);
    expectExit(result, 2);
    expect(result.stderr).toBe([
      'converge: warning: dated.yaml:1: ignore rule expired on 2020-01-31 (reason "gone by 2020"): not applied',
      "converge: ignore rules: dated.yaml (1 rule, 1 expired); 2 findings ignored",
      "",
    ].join("\n"));
    expect(parseDriftJson(result).summary).toMatchObject({ drifted: 0, missing: 0, unmanaged: 1, ignored: 2 });
  });

  it("folds the ignore files into desiredFingerprint, so shards run with other rules do not merge", async () => {
    const cwd = await workdir({ "a.yaml": `- {address: "${UNMANAGED}", reason: a}\n`, "b.yaml": `- {address: "${UNMANAGED}", reason: b}\n` });
    const plain = parseDriftJson(await drift(cwd, ["--output", "json"]));
    const withA = parseDriftJson(await drift(cwd, ["--ignore", "a.yaml", "--output", "json"]));
    const withB = parseDriftJson(await drift(cwd, ["--ignore", "b.yaml", "--output", "json", "--report", "b.json"]));
    expect(new Set([plain.desiredFingerprint, withA.desiredFingerprint, withB.desiredFingerprint]).size).toBe(3);
    await drift(cwd, ["--ignore", "a.yaml", "--shard", "1/1", "--report", "shard-a.json"]);
    await drift(cwd, ["--ignore", "b.yaml", "--shard", "1/1", "--report", "shard-b.json"]);
    const merged = await runCli(["drift-merge", "shard-a.json", "shard-b.json"], { cwd });
    expectExit(merged, 1);
    expect(merged.stderr).toContain("shard-b.json was made from other desired state or ignore rules than shard-a.json");
    const kept = await runCli(["drift-merge", "b.json", "--output", "json"], { cwd });
    expect(resourceAt(parseDriftJson(kept), UNMANAGED).ignoredBy).toEqual({ file: "b.yaml", line: 1, reason: "b" });
  });

  it("refuses bad ignore files with exit 1 before any request, listing every problem of every file with file, line and value", async () => {
    const cwd = await workdir({
      ".convergeignore.yaml": [
        `- address: "Route/${ORDERS_API}/*"`,
        "  reason: fine",
        "- address: \"\"",
        "  until: 2027-02-30",
        "  outcome: [drifted]",
        "",
      ].join("\n"),
      "ops.yaml": "address: \"*\"\nreason: not a list\n",
      "deep.yaml": `${"[".repeat(100)}${"]".repeat(100)}\n`,
      "huge.yaml": `# ${"x".repeat(1 << 20)}\n`,
    });
    const before = service.requests.count();
    const result = await drift(cwd, ["--ignore", "ops.yaml", "--ignore", "nowhere.yaml", "--ignore", "deep.yaml", "--ignore", "huge.yaml"]);
    expectExit(result, 1);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toEqual([
      "converge: ignore rules are not valid (8 problems):",
      '  .convergeignore.yaml:3: address "" is empty: expected an address or a glob of addresses (e.g. "Route/a1b2c3d4e5/*")',
      "  .convergeignore.yaml:3: a rule without reason: expected why its findings are accepted",
      '  .convergeignore.yaml:4: until "2027-02-30" is not a date: 2027-02 has no day 30; expected YYYY-MM-DD (e.g. 2027-01-31)',
      '  .convergeignore.yaml:5: unknown key "outcome": expected address, fields, outcomes, except, reason, until',
      "  ops.yaml:1: holds a mapping: expected a YAML list of rules (- address: …; an empty file is [])",
      `  nowhere.yaml: cannot read the ignore file: no such file or directory (ENOENT); check the path, relative to the working directory ${cwd}`,
      expect.stringMatching(/^ {2}deep\.yaml:1: nested too deeply: a list or mapping opens at level 65; /),
      "  huge.yaml: is larger than 1048576 bytes: expected an ignore file of at most 1 MiB (split the rules over several --ignore files)",
      "",
    ]);
    expect(service.requests.count()).toBe(before);
  });
});

describe("converge drift-ignore", { timeout: E2E_TIMEOUT_MS }, () => {
  it("prints a baseline of every finding that makes the next drift on the same estate exit 0", async () => {
    const cwd = await workdir({});
    expectExit(await drift(cwd, ["--report", "drift.json"]), 2);
    const baseline = await runCli(["drift-ignore", "drift.json", "--reason", "accepted at the 2026 audit", "--until", "2999-01-31"], { cwd });
    expectExit(baseline, 0);
    expect(baseline.stderr).toBe("");
    const lines = baseline.stdout.split("\n");
    expect(lines[0]).toMatch(/^# converge drift-ignore: 3 rules accepting the findings of "drift\.json" \(generated \d{4}-/);
    expect(lines).toContain(`- address: "${MISSING}"`);
    expect(lines).toContain("  fields: [\"authorizationScopes\"]");
    expect(lines.filter((line) => line === "  until: 2999-01-31")).toHaveLength(3);
    await writeFile(join(cwd, "baseline.yaml"), baseline.stdout);
    const next = await drift(cwd, ["--ignore", "baseline.yaml", "--output", "json"]);
    expectExit(next, 0);
    expect(parseDriftJson(next).summary).toMatchObject({ drifted: 0, missing: 0, unmanaged: 0, ignored: 3 });
    expect(next.stderr).toBe("converge: ignore rules: baseline.yaml (3 rules); 3 findings ignored\n");
  });

  it("takes only the outcomes --only names", async () => {
    const cwd = await workdir({});
    expectExit(await drift(cwd, ["--report", "drift.json"]), 2);
    const result = await runCli(["drift-ignore", "drift.json", "--reason", "r", "--only", "unmanaged,refused"], { cwd });
    expectExit(result, 0);
    const addresses = result.stdout.split("\n").filter((line) => line.startsWith("- address: ")).map((line) => JSON.parse(line.slice("- address: ".length)) as string);
    expect(addresses).toContain(UNMANAGED);
    expect(addresses).toContain(`Route/${ORDERS_API}/$default`);
    expect(addresses).not.toContain(DRIFTED);
  });

  it.each([
    { name: "a blank reason", args: ["--reason", " "], message: 'converge: --reason " " is blank: expected why the findings are accepted\n' },
    { name: "a date that does not exist", args: ["--reason", "r", "--until", "2027-02-30"], message: 'converge: --until "2027-02-30" is not a date: 2027-02 has no day 30; expected YYYY-MM-DD (e.g. 2027-01-31)\n' },
    { name: "a date that is over", args: ["--reason", "r", "--until", "2020-01-01"], message: /^converge: --until 2020-01-01 is over \(today is \d{4}-\d\d-\d\d UTC\): expected today or a later day\n$/ },
    { name: "an outcome that is not a finding", args: ["--reason", "r", "--only", "drifted,in-sync"], message: /^converge: --only "drifted,in-sync": "in-sync" is not an outcome of a finding/ },
    { name: "no reason", args: [], message: /required option '--reason <text>' not specified/ },
  ])("refuses $name with exit 1", async ({ args, message }) => {
    const cwd = await workdir({ "drift.json": "{}" });
    const result = await runCli(["drift-ignore", "drift.json", ...args], { cwd });
    expectExit(result, 1);
    expect(result.stdout).toBe("");
    if (typeof message === "string") expect(result.stderr).toBe(message);
    else expect(result.stderr).toMatch(message);
  });

  it("refuses a file that is not a drift report", async () => {
    const cwd = await workdir({ "drift.json": "{\"formatVersion\": 1}" });
    const result = await runCli(["drift-ignore", "drift.json", "--reason", "r"], { cwd });
    expectExit(result, 1);
    expect(result.stderr).toMatch(/^converge: drift\.json is not a converge drift report \(formatVersion 2\): /);
  });
});
