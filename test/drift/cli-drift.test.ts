import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { DriftReport } from "../../src/reconcile/drift-report.js";
import type { RunningService } from "../../src/service/index.js";
import { runCli, type CliResult } from "../support/cli.js";
import { accountCall, call } from "../support/http.js";
import { ADMIN_TOKEN, CHAT_API, E2E_TIMEOUT_MS, ORDERS_API, converge, createIntegrationOverHttp, createRouteOverHttp, expectExit, liveIntegrations, liveRoute, writeFiles, useE2eResources } from "../e2e/e2e-fixture.js";
import { MEMBER_BILLING_LINES, ORDERS_LINES, US_EAST_DISABLED_LINES, countOutcomes, normalizeReport, outcomeLines, parseDriftJson, resourceAt } from "./support/drift-fixture.js";
import { elementsNamed, parseXml, type XmlElement } from "./support/xml.js";

/**
 * `converge drift` end to end: the CLI as a subprocess against the embedded service (demo world)
 * holding an estate with every outcome — in sync, drifted (per field), missing, unmanaged, refused
 * and unknown — reported as text, JSON, markdown (also appended to $GITHUB_STEP_SUMMARY) and JUnit
 * XML, with exit codes 0, 2, 3 and 1, sharded and merged, and never a single write.
 */

const { services, dirs } = useE2eResources();
let service: RunningService;
/** The desired-state files (drift reads `-f .` here). */
let dir: string;
/** Reports and other files the tests write (apart, so that `-f .` does not read them). */
let out: string;
/** IDs of what the setup made outside converge. */
let seeded: { orphanIntegrationId: string; managedIntegrationId: string };

const FILES: Record<string, string> = {
  // resources that are in sync after the seeding apply
  "in-sync.yaml": [
    "kind: AlternateContact",
    "spec: {type: SECURITY, name: Security Team, title: CISO, emailAddress: security@example.com, phoneNumber: \"+1 555 0100\"}",
    "---",
    "kind: RegionOptIn",
    'account: "222222222222"',
    "spec: {region: ap-east-1, enabled: false}",
    "",
  ].join("\n"),
  // a contact changed behind converge's back, and a Region that cannot be disabled (refused)
  "accounts.yaml": [...MEMBER_BILLING_LINES, "---", ...US_EAST_DISABLED_LINES, ""].join("\n"),
  // the orders API, owned (no prune: unmanaged resources are reported all the same)
  "orders.yaml": [
    ...ORDERS_LINES,
    "---",
    "kind: Route",
    `api: ${ORDERS_API}`,
    "ensure: absent",
    "spec: {routeKey: GET /legacy}",
    "",
  ].join("\n"),
  // what cannot be compared: an API that does not exist, a contact the token may not read, an ambiguous natural key
  "unknown.yaml": [
    "kind: Route",
    "api: zzzzzzzzzz",
    "spec: {routeKey: GET /nowhere}",
    "---",
    "kind: AlternateContact",
    'account: "444444444444"',
    "spec: {type: SECURITY, name: Standalone, title: Owner, emailAddress: owner@example.com, phoneNumber: \"+1 555 0199\"}",
    "---",
    "kind: Integration",
    "name: twin",
    `api: ${CHAT_API}`,
    'spec: {integrationType: HTTP_PROXY, integrationUri: "https://chat.example/twin", integrationMethod: POST}',
    "",
  ].join("\n"),
};

const SEEDED_FILES = ["in-sync.yaml", "accounts.yaml", "orders.yaml"];

function drift(args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(["drift", ...args], { cwd: dir, env: { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, GITHUB_STEP_SUMMARY: undefined, ...env } });
}

beforeAll(async () => {
  service = await services.start();
  dir = await dirs.make("drift");
  out = await dirs.make("drift-out");
  await writeFiles(dir, FILES);
  const applied = await converge(service, ["apply", ...SEEDED_FILES.flatMap((file) => ["-f", file]), "--auto-approve"], dir);
  expectExit(applied, 0);

  // drift, made behind converge's back
  const post = await liveRoute(service, ORDERS_API, "POST /orders");
  const patched = await call(service, `/v2/apis/${ORDERS_API}/routes/${post.routeId}`, { method: "PATCH", token: ADMIN_TOKEN, body: { authorizerId: "jwt2", authorizationScopes: ["orders.admin"] } });
  expect(patched.status, patched.text).toBe(200);
  const removed = await liveRoute(service, ORDERS_API, "DELETE /orders/{id}");
  const deleted = await call(service, `/v2/apis/${ORDERS_API}/routes/${removed.routeId}`, { method: "DELETE", token: ADMIN_TOKEN });
  expect(deleted.status, deleted.text).toBe(204);
  await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /legacy" });
  const backend = (await liveIntegrations(service, ORDERS_API)).find((integration) => integration.integrationUri === "https://backend.example/orders")!;
  await createRouteOverHttp(service, ORDERS_API, { routeKey: "GET /stray", target: `integrations/${backend.integrationId}` });
  const orphan = await createIntegrationOverHttp(service, ORDERS_API, { integrationType: "HTTP_PROXY", integrationUri: "https://orphan.example/x", integrationMethod: "ANY", payloadFormatVersion: "1.0" });
  const contact = await accountCall(service, "PutAlternateContact", { AccountId: "222222222222", AlternateContactType: "BILLING", Name: "Someone Else", Title: "Controller", EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0101" }, ADMIN_TOKEN);
  expect(contact.status, contact.text).toBe(200);
  for (let i = 0; i < 2; i += 1) await createIntegrationOverHttp(service, CHAT_API, { integrationType: "HTTP_PROXY", integrationUri: "https://chat.example/twin", integrationMethod: "POST" });
  const managed = (await liveIntegrations(service, ORDERS_API)).find((integration) => integration.apiGatewayManaged === true)!;
  seeded = { orphanIntegrationId: orphan.integrationId, managedIntegrationId: managed.integrationId };
  service.requests.reset();
}, E2E_TIMEOUT_MS);

/** Every resource of the whole estate, with its outcome. */
function expectedOutcomes(): string[] {
  return [
    `in-sync Api/${ORDERS_API}`,
    `in-sync Integration/${ORDERS_API}/backend`,
    `in-sync Route/${ORDERS_API}/GET /orders`,
    "in-sync AlternateContact/self/SECURITY",
    "in-sync RegionOptIn/222222222222/ap-east-1",
    `drifted Route/${ORDERS_API}/POST /orders`,
    `drifted Route/${ORDERS_API}/GET /legacy`,
    "drifted AlternateContact/222222222222/BILLING",
    `missing Route/${ORDERS_API}/DELETE /orders/{id}`,
    `unmanaged Route/${ORDERS_API}/GET /stray`,
    `unmanaged Integration/${ORDERS_API}/${seeded.orphanIntegrationId}`,
    `refused Route/${ORDERS_API}/$default`,
    `refused Integration/${ORDERS_API}/${seeded.managedIntegrationId}`,
    "refused RegionOptIn/self/us-east-1",
    "unknown Route/zzzzzzzzzz/GET /nowhere",
    "unknown AlternateContact/444444444444/SECURITY",
    `unknown Integration/${CHAT_API}/twin`,
  ].sort();
}

describe("converge drift over an estate with every outcome", { timeout: E2E_TIMEOUT_MS }, () => {
  let result: CliResult;
  let report: DriftReport;
  let summaryFile: string;

  beforeAll(async () => {
    summaryFile = join(out, "step-summary.md");
    await writeFile(summaryFile, "earlier step\n");
    result = await drift(["-f", ".", "--output", "json", "--report", join(out, "drift.xml"), "--report", join(out, "drift.md"), "--report", join(out, "copy.json")], { GITHUB_STEP_SUMMARY: summaryFile });
    report = parseDriftJson(result);
  }, E2E_TIMEOUT_MS);

  it("puts every resource in exactly one outcome and exits 3 because some could not be compared", () => {
    expectExit(result, 3);
    expect(outcomeLines(report)).toEqual(expectedOutcomes());
    // coverage: of the 8 live resources in the owned scope (routes, integrations, contacts, opted-in Regions), 6 are declared, 2 unmanaged
    expect(report.summary).toEqual({
      "in-sync": 5, drifted: 3, missing: 1, unmanaged: 2, conflict: 0, refused: 3, unknown: 3, ignored: 0, coverage: { managed: 6, live: 8, percent: 75 },
    });
    const { ignored: _ignored, coverage: _coverage, ...counts } = report.summary;
    expect(counts).toEqual(countOutcomes(report));
  });

  it("follows the versioned JSON schema", async () => {
    expect(report.formatVersion).toBe(2);
    expect(Date.parse(report.generatedAt)).toBeGreaterThan(Date.now() - 120_000);
    expect(report.shard).toBeUndefined();
    expect(report.desiredFingerprint).toMatch(/^[0-9a-f]{64}$/);
    for (const resource of report.resources) {
      expect(Object.keys(resource)).toEqual(["address", "kind", "identity", "outcome", "fields", "reason", "source"]);
    }
    expect(resourceAt(report, `Route/${ORDERS_API}/GET /orders`)).toEqual({
      address: `Route/${ORDERS_API}/GET /orders`, kind: "Route", identity: `${ORDERS_API}/GET /orders`, outcome: "in-sync", fields: [], reason: null,
      source: { file: "orders.yaml", line: 10, column: 1 },
    });
    // --report copy.json holds the same report
    expect(JSON.parse(await readFile(join(out, "copy.json"), "utf8"))).toEqual(report);
  });

  it("reports drifted fields with their desired and live values", () => {
    expect(resourceAt(report, `Route/${ORDERS_API}/POST /orders`).fields).toEqual([
      { path: "authorizerId", desired: "jwt1", live: "jwt2" },
      { path: "authorizationScopes", desired: ["orders.write"], live: ["orders.admin"] },
    ]);
    expect(resourceAt(report, "AlternateContact/222222222222/BILLING").fields).toEqual([{ path: "name", desired: "Billing Team", live: "Someone Else" }]);
    const legacy = resourceAt(report, `Route/${ORDERS_API}/GET /legacy`);
    expect(legacy.fields).toEqual([{ path: "ensure", desired: "absent", live: "present" }]);
    expect(legacy.reason).toBe("declared ensure: absent, but it exists");
    const missing = resourceAt(report, `Route/${ORDERS_API}/DELETE /orders/{id}`);
    expect(missing.fields.map((field) => [field.path, field.live])).toEqual([["routeKey", null], ["target", null]]);
    expect(missing.fields[1]!.desired).toMatch(/^integrations\/[a-z0-9]+$/);
  });

  it("gives the reason of every unmanaged, refused and unknown resource", () => {
    const reasonOf = (address: string) => resourceAt(report, address).reason;
    expect(reasonOf(`Route/${ORDERS_API}/GET /stray`)).toBe("live but not declared, in an API the Api document at orders.yaml:1 owns");
    expect(resourceAt(report, `Route/${ORDERS_API}/GET /stray`).source).toEqual({ file: "orders.yaml", line: 1, column: 1 });
    expect(reasonOf(`Route/${ORDERS_API}/$default`)).toMatch(/^not declared, in an API the Api document at orders\.yaml:1 owns, but protected: route \w+ \(\$default\) is managed by the service/);
    expect(reasonOf(`Integration/${ORDERS_API}/${seeded.managedIntegrationId}`)).toMatch(/managed by the service \(quick create\): it may be updated, never deleted/);
    expect(reasonOf("RegionOptIn/self/us-east-1")).toBe("Region us-east-1 is enabled by default and cannot be disabled");
    expect(reasonOf("Route/zzzzzzzzzz/GET /nowhere")).toBe("api: API zzzzzzzzzz does not exist in this account (or the token may not read it)");
    expect(reasonOf("AlternateContact/444444444444/SECURITY")).toMatch(/^could not read the SECURITY contact of account 444444444444: account GetAlternateContact failed: 403 AccessDeniedException: /);
    expect(reasonOf(`Integration/${CHAT_API}/twin`)).toMatch(/matches 2 live integrations of API w5s0ck3t01 by its natural key.*Pin the one you mean with spec\.integrationId/);
  });

  it("writes JUnit XML: one testsuite, one testcase per resource, drift as failures, unknown as errors, refused as skipped", async () => {
    const root = parseXml(await readFile(join(out, "drift.xml"), "utf8"));
    expect(root.name).toBe("testsuites");
    const suites = elementsNamed(root, "testsuite");
    expect(suites).toHaveLength(1);
    const suite = suites[0]!;
    expect(suite.attributes).toMatchObject({ name: "converge drift", tests: "17", failures: "6", errors: "3", skipped: "3", timestamp: report.generatedAt });
    const [properties, ...cases] = suite.children;
    expect(properties!.name).toBe("properties");
    expect(Object.fromEntries(properties!.children.map((property) => [property.attributes.name, property.attributes.value]))).toEqual({
      "coverage.managed": "6", "coverage.live": "8", "coverage.percent": "75", ignored: "0",
    });
    expect(cases.every((element) => element.name === "testcase")).toBe(true);
    const verdict = (testcase: XmlElement) => testcase.children.map((child) => child.name).join(",") || "passed";
    const byName = new Map(cases.map((testcase) => [testcase.attributes.name!, testcase]));
    expect(byName.size).toBe(17);
    expect(cases.map((testcase) => `${verdict(testcase)} ${testcase.attributes.name}`).sort()).toEqual(expectedOutcomes().map((line) => {
      const [outcome, ...address] = line.split(" ");
      const element = { "in-sync": "passed", drifted: "failure", missing: "failure", unmanaged: "failure", refused: "skipped", unknown: "error" }[outcome!];
      return `${element} ${address.join(" ")}`;
    }).sort());
    const post = byName.get(`Route/${ORDERS_API}/POST /orders`)!;
    expect(post.attributes).toMatchObject({ classname: "converge.drift.Route", file: "orders.yaml", line: "14" });
    expect(post.children[0]!.attributes).toEqual({ type: "drifted", message: "drifted: 2 fields differ" });
    expect(post.children[0]!.text).toBe('authorizerId: desired "jwt1", live "jwt2"\nauthorizationScopes: desired ["orders.write"], live ["orders.admin"]');
    const skipped = byName.get("RegionOptIn/self/us-east-1")!.children[0]!;
    expect(skipped.attributes.message).toBe("refused: Region us-east-1 is enabled by default and cannot be disabled");
    const error = byName.get("Route/zzzzzzzzzz/GET /nowhere")!.children[0]!;
    expect(error.attributes.type).toBe("unknown");
    expect(error.text).toContain("API zzzzzzzzzz does not exist");
  });

  it("writes markdown with the counts and one row per resource that is not in sync, and appends it to $GITHUB_STEP_SUMMARY", async () => {
    const markdown = await readFile(join(out, "drift.md"), "utf8");
    const lines = markdown.split("\n");
    expect(lines[0]).toBe("### converge drift");
    expect(lines[2]).toBe("**3** drifted · **1** missing · **2** unmanaged · **3** unknown · 3 refused · 5 in sync");
    expect(lines).toContain("| outcome | resource | details |");
    expect(lines).toContain(`| drifted | \`Route/${ORDERS_API}/POST /orders\` | \`authorizerId\`: desired "jwt1", live "jwt2"<br>\`authorizationScopes\`: desired ["orders.write"], live ["orders.admin"] |`);
    expect(lines).toContain(`| missing | \`Route/${ORDERS_API}/DELETE /orders/{id}\` | declared, but not found in live state |`);
    expect(lines.filter((line) => line.startsWith("| ") && !line.startsWith("| outcome"))).toHaveLength(12);
    expect(lines.some((line) => line.includes("GET /orders`"))).toBe(false);
    expect(await readFile(join(out, "step-summary.md"), "utf8")).toBe(`earlier step\n${markdown}`);
  });

  it("prints text for people, not-in-sync resources first with their fields, then a summary line", async () => {
    const text = await drift(["-f", "."]);
    expectExit(text, 3);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toBe("converge drift: Some resources could not be compared; the others:");
    expect(lines).toContain(`  ~ Route/${ORDERS_API}/POST /orders drifted  (orders.yaml:14)`);
    expect(lines).toContain('      authorizerId         desired "jwt1", live "jwt2"');
    expect(lines).toContain('      authorizationScopes  desired ["orders.write"], live ["orders.admin"]');
    expect(lines).toContain("  ? Route/zzzzzzzzzz/GET /nowhere unknown  (unknown.yaml:1)");
    expect(lines.at(-2)).toBe("Drift: 3 drifted, 1 missing, 2 unmanaged, 3 refused, 3 unknown, 5 in sync (17 resources); coverage unknown (3 could not be read; 6 of 8 live resources read managed).");
  });

  it("prints markdown on stdout with --output markdown", async () => {
    const printed = await drift(["-f", ".", "--output", "markdown"]);
    expectExit(printed, 3);
    expect(printed.stdout).toBe(await readFile(join(out, "drift.md"), "utf8"));
  });

  it("made no write request at all", () => {
    expect(service.requests.count()).toBeGreaterThan(0);
    expect(service.requests.count({ writesOnly: true })).toBe(0);
  });
});

describe("converge drift exit codes", { timeout: E2E_TIMEOUT_MS }, () => {
  it("exits 0 when every resource is in sync", async () => {
    const result = await drift(["-f", "in-sync.yaml", "--output", "json"]);
    expectExit(result, 0);
    expect(outcomeLines(parseDriftJson(result))).toEqual(["in-sync AlternateContact/self/SECURITY", "in-sync RegionOptIn/222222222222/ap-east-1"]);
    const text = await drift(["-f", "in-sync.yaml"]);
    expectExit(text, 0);
    expect(text.stdout.split("\n")[0]).toBe("converge drift: No drift. Live state matches the desired state.");
  });

  it("exits 2 when there is drift and every resource could be compared (refused ones do not count)", async () => {
    const result = await drift(["-f", "in-sync.yaml", "-f", "accounts.yaml", "-f", "orders.yaml", "--output", "json"]);
    expectExit(result, 2);
    expect(parseDriftJson(result).summary).toEqual({
      "in-sync": 5, drifted: 3, missing: 1, unmanaged: 2, conflict: 0, refused: 3, unknown: 0, ignored: 0, coverage: { managed: 6, live: 8, percent: 75 },
    });
    const refusedOnly = await drift(["-f", "in-sync.yaml", "--output", "json"]);
    expectExit(refusedOnly, 0);
  });

  it("exits 3 when some resource could not be compared, even with drift present", async () => {
    const result = await drift(["-f", "accounts.yaml", "-f", "unknown.yaml", "--output", "json"]);
    expectExit(result, 3);
    expect(parseDriftJson(result).summary).toMatchObject({ drifted: 1, refused: 1, unknown: 3 });
  });

  it("reads the desired state a cdktf synth wrote with --from-synth, alone or with -f files as one desired state", async () => {
    const stack = join(out, "cdktf.out", "stacks", "main");
    await mkdir(stack, { recursive: true });
    await writeFile(join(stack, "converge.desired.json"), JSON.stringify([
      { kind: "AlternateContact", spec: { type: "SECURITY", name: "Security Team", title: "CISO", emailAddress: "security@example.com", phoneNumber: "+1 555 0100" } },
      { kind: "Route", api: ORDERS_API, spec: { routeKey: "GET /synth-only" } },
    ]));
    const result = await drift(["--from-synth", join(out, "cdktf.out"), "--output", "json"]);
    expectExit(result, 2);
    expect(outcomeLines(parseDriftJson(result))).toEqual(["in-sync AlternateContact/self/SECURITY", `missing Route/${ORDERS_API}/GET /synth-only`]);
    // the files and the synth output are one desired state: a resource both declare is refused before any read
    const both = await drift(["--from-synth", join(out, "cdktf.out"), "-f", "in-sync.yaml"]);
    expectExit(both, 1);
    expect(both.stderr).toContain("AlternateContact/self/SECURITY is declared twice: first at in-sync.yaml:1");
  });

  it("exits 1 on bad desired state, naming file, line and field, before any call", async () => {
    await writeFile(join(out, "broken.yml"), "kind: RegionOptIn\nspec: {region: ap-east-1, enabled: maybe}\n");
    const before = service.requests.count();
    const result = await drift(["-f", join(out, "broken.yml")]);
    expectExit(result, 1);
    expect(result.stderr).toMatch(/broken\.yml:2:\d+: spec\.enabled: /);
    expect(result.stdout).toBe("");
    expect(service.requests.count()).toBe(before);
  });

  it("refuses an --account that is not an account ID, and --account without --unmanaged all, before any call", async () => {
    const before = service.requests.count();
    const malformed = await drift(["-f", "in-sync.yaml", "--unmanaged", "all", "--account", "12345", "--account", "self"]);
    expectExit(malformed, 1);
    expect(malformed.stderr).toBe('converge: --account "12345" is not valid: expected 12 digits, or self for the caller\'s own account\n');
    const owned = await drift(["-f", "in-sync.yaml", "--account", "222222222222"]);
    expectExit(owned, 1);
    expect(owned.stderr).toBe("converge: --account goes with --unmanaged all: it adds accounts whose contacts and Regions that scope reads\n");
    expect(malformed.stdout + owned.stdout).toBe("");
    expect(service.requests.count()).toBe(before);
  });

  it("exits 1 when no read succeeds at all (a token the service does not know)", async () => {
    const result = await drift(["-f", "in-sync.yaml", "-f", "orders.yaml"], { CONVERGE_TOKEN: "not-a-token" });
    expectExit(result, 1);
    expect(result.stderr).toMatch(/^converge: .*403 AccessDeniedException/);
    expect(result.stdout).toBe("");
  });

  it("rejects --shard values outside 1..N and --report files of no known format", async () => {
    const zero = await drift(["-f", ".", "--shard", "0/4"]);
    expectExit(zero, 1);
    expect(zero.stderr).toContain("shards are numbered from 1 to 4");
    const auto = await drift(["-f", ".", "--shard", "auto/4"], { JOB_COMPLETION_INDEX: "4" });
    expectExit(auto, 1);
    expect(auto.stderr).toContain("needs JOB_COMPLETION_INDEX from 0 to 3");
    const report = await drift(["-f", ".", "--report", join(out, "drift.txt")]);
    expectExit(report, 1);
    expect(report.stderr).toContain("expected a file ending in .xml (JUnit), .json (the JSON report), .md (markdown) or .html (a page for people)");
  });
});

describe("converge drift --shard and drift-merge", { timeout: E2E_TIMEOUT_MS }, () => {
  it("splits the estate into disjoint shards that read each API once between them, and merges them into the single-process report", async () => {
    const apisListed = () => service.requests.records({ operation: "GetRoutes" }).map((record) => record.path.split("/")[3]!);
    service.requests.reset();
    const whole = await drift(["-f", ".", "--output", "json"]);
    expectExit(whole, 3);
    const listedByWhole = apisListed().sort();
    expect(listedByWhole).toEqual([ORDERS_API, CHAT_API].sort());
    const shards: DriftReport[] = [];
    const listedApis: string[] = [];
    for (const index of [1, 2, 3]) {
      service.requests.reset();
      const shard = await drift(["-f", ".", "--shard", `${index}/3`, "--report", join(out, `shard-${index}.json`), "--output", "json"]);
      expect([0, 2, 3], `exit of shard ${index}`).toContain(shard.code);
      const report = parseDriftJson(shard);
      expect(report.shard).toEqual({ index, count: 3 });
      shards.push(report);
      listedApis.push(...apisListed());
      expect(service.requests.count({ writesOnly: true })).toBe(0);
    }
    const addresses = shards.flatMap((report) => report.resources.map((resource) => resource.address));
    expect(new Set(addresses).size, "no resource in two shards").toBe(addresses.length);
    expect(addresses.sort()).toEqual(parseDriftJson(whole).resources.map((resource) => resource.address).sort());
    // each API's routes were listed by exactly one shard, as often as by the single process
    expect(listedApis.sort()).toEqual(listedByWhole);

    const merged = await runCli(["drift-merge", "shard-3.json", "shard-1.json", "shard-2.json", "--output", "json", "--report", "merged.xml"], { cwd: out });
    expectExit(merged, 3);
    expect(normalizeReport(parseDriftJson(merged))).toEqual(normalizeReport(parseDriftJson(whole)));
    const xml = parseXml(await readFile(join(out, "merged.xml"), "utf8"));
    expect(elementsNamed(xml, "testcase")).toHaveLength(17);
  });

  it("takes the shard from JOB_COMPLETION_INDEX with --shard auto/N (0-based: index 0 is shard 1)", async () => {
    const explicit = await drift(["-f", ".", "--shard", "1/3", "--output", "json"]);
    const auto = await drift(["-f", ".", "--shard", "auto/3", "--output", "json"], { JOB_COMPLETION_INDEX: "0" });
    expect(auto.code).toBe(explicit.code);
    expect(normalizeReport(parseDriftJson(auto))).toEqual(normalizeReport(parseDriftJson(explicit)));
  });

  it("refuses to merge when a shard is missing", async () => {
    for (const index of [1, 2]) expect([0, 2, 3]).toContain((await drift(["-f", ".", "--shard", `${index}/3`, "--report", join(out, `partial-${index}.json`)])).code);
    const merged = await runCli(["drift-merge", "partial-1.json", "partial-2.json"], { cwd: out });
    expectExit(merged, 1);
    expect(merged.stderr).toBe("converge: shard 3/3 missing: the merged report would not cover every resource\n");
  });
});
