import { describe, expect, it } from "vitest";
import { parseOutcomeList } from "../../src/cli/commands/drift-ignore-command.js";
import { applyIgnoreRules, ruleAccepts } from "../../src/reconcile/drift-ignore.js";
import { baselineRules, renderIgnoreBaseline } from "../../src/reconcile/drift-ignore-baseline.js";
import { addressGlobProblem, matchesAddressGlob } from "../../src/reconcile/drift-ignore-glob.js";
import {
  DEFAULT_IGNORED_OUTCOMES,
  calendarDateProblem,
  foldIgnoreFiles,
  isIgnoreRulesError,
  isRuleExpired,
  parseIgnoreFile,
  parseIgnoreFiles,
  type IgnoreRule,
} from "../../src/reconcile/drift-ignore-rules.js";
import { driftExitCode, driftReport, type DriftOutcome, type DriftReport, type DriftResource } from "../../src/reconcile/drift-report.js";
import { thrownBy } from "../support/thrown.js";

/** Ignore rules: the address glob, parsing (every refusal names file, line and value), matching, applying with a clock, and the baseline. */

const resource = (address: string, outcome: DriftOutcome, fields: string[] = []): DriftResource => ({
  address,
  kind: address.split("/")[0] as DriftResource["kind"],
  identity: address.split("/").slice(1).join("/"),
  outcome,
  fields: fields.map((path) => ({ path, desired: "a", live: "b" })),
  reason: null,
  source: null,
});

const report = (resources: DriftResource[]): DriftReport =>
  driftReport({ generatedAt: "2026-06-01T00:00:00.000Z", desiredFingerprint: "f".repeat(64), resources, coverage: { managed: 3, live: 4 } });

/** The rules of a YAML text (failing the test with the problems when there are some). */
function rulesOf(text: string, file = "ops.yaml"): IgnoreRule[] {
  const { rules, problems } = parseIgnoreFile({ file, text });
  expect(problems).toEqual([]);
  return rules;
}

const rule = (fields: Partial<IgnoreRule>): IgnoreRule => ({ file: "ops.yaml", line: 1, address: "*", except: [], outcomes: DEFAULT_IGNORED_OUTCOMES, reason: "known", ...fields });

describe("matchesAddressGlob", () => {
  it.each([
    { glob: "Route/a1b2c3d4e5/*", address: "Route/a1b2c3d4e5/GET /orders", matches: true },
    { glob: "Route/a1b2c3d4e5/*", address: "Route/a1b2c3d4e5/GET /orders/{id}/items", matches: true },
    { glob: "Route/a1b2c3d4e5/*", address: "Route/zzzzzzzzzz/GET /orders", matches: false },
    { glob: "Route/*/GET /orders/{id}", address: "Route/a1b2c3d4e5/GET /orders/{id}", matches: true },
    { glob: "Route/*/GET /orders/{id}", address: "Route/a1b2c3d4e5/GET /orders/7", matches: false },
    { glob: "Route/a1b2c3d4e5/$default", address: "Route/a1b2c3d4e5/$default", matches: true },
    { glob: "Route/a1b2c3d4e5/$default", address: "Route/a1b2c3d4e5/$defaults", matches: false },
    { glob: "Route/*/ANY /{proxy+}", address: "Route/a1b2c3d4e5/ANY /{proxy+}", matches: true },
    { glob: "Route/*/ANY /{proxy+}", address: "Route/a1b2c3d4e5/ANY /{proxyy}", matches: false },
    { glob: "AlternateContact/???/SECURITY", address: "AlternateContact/abc/SECURITY", matches: true },
    { glob: "AlternateContact/???/SECURITY", address: "AlternateContact/abcd/SECURITY", matches: false },
    { glob: "Integration/*/orders-*", address: "Integration/a1b2c3d4e5/orders-backend", matches: true },
    { glob: "*", address: "RegionOptIn/self/ap-east-1", matches: true },
    { glob: "RegionOptIn/*", address: "Route/a1b2c3d4e5/GET /orders", matches: false },
    { glob: "Route/a1b2c3d4e5/GET /orders", address: "Route/a1b2c3d4e5/GET /orders", matches: true },
    { glob: "Route/a1b2c3d4e5/GET /orders", address: "Route/a1b2c3d4e5/GET /orders2", matches: false },
    { glob: "Route/a1b2c3d4e5/GET /order?", address: "Route/a1b2c3d4e5/GET /orders", matches: true },
    { glob: "Route/x/GET /é?", address: "Route/x/GET /é😀", matches: true },
    { glob: "*a*a*a*a*a*a*a*a*b", address: "a".repeat(5_000), matches: false },
    { glob: "Route/[ab]/x", address: "Route/a/x", matches: false },
    { glob: "Route/[ab]/x", address: "Route/[ab]/x", matches: true },
  ])("$glob against $address: $matches", ({ glob, address, matches }) => {
    expect(matchesAddressGlob(glob, address)).toBe(matches);
  });

  it.each([
    { glob: "", problem: /^is empty/ },
    { glob: "   ", problem: /^is empty/ },
    { glob: "Route/x\u0000/GET /", problem: /^holds the control character U\+0000/ },
    { glob: "Route/x/GET /a\nb", problem: /^holds the control character U\+000A/ },
    { glob: "Route/x\u007f", problem: /^holds the control character U\+007F/ },
    { glob: " Route/*", problem: /^starts or ends with white space/ },
  ])("refuses $glob: $problem", ({ glob, problem }) => {
    expect(addressGlobProblem(glob)).toMatch(problem);
  });

  it("accepts globs with spaces, braces and $ inside", () => {
    expect(addressGlobProblem("Route/a1b2c3d4e5/GET /orders/{id}")).toBeUndefined();
    expect(addressGlobProblem("Route/*/$default")).toBeUndefined();
  });
});

describe("parseIgnoreFile", () => {
  it("reads every key, the line of each rule's first key, and the defaults", () => {
    const rules = rulesOf([
      "# accepted drift",
      "- address: \"Route/a1b2c3d4e5/*\"",
      "  fields: [authorizationScopes]",
      "  outcomes: [drifted]",
      "  except: [\"Route/a1b2c3d4e5/GET /admin\"]",
      "  reason: the IdP rotates scopes nightly",
      "  until: 2027-01-31",
      "",
      "- reason: hand-made",
      "  address: RegionOptIn/self/*",
      "",
    ].join("\n"));
    expect(rules).toEqual([
      {
        file: "ops.yaml", line: 2, address: "Route/a1b2c3d4e5/*", except: ["Route/a1b2c3d4e5/GET /admin"], outcomes: ["drifted"],
        fields: ["authorizationScopes"], reason: "the IdP rotates scopes nightly", until: "2027-01-31",
      },
      { file: "ops.yaml", line: 9, address: "RegionOptIn/self/*", except: [], outcomes: ["drifted", "missing", "unmanaged", "conflict", "refused", "unknown"], reason: "hand-made" },
    ]);
  });

  it("reads an empty list as no rules", () => {
    expect(rulesOf("# nothing accepted yet\n[]\n")).toEqual([]);
  });

  it.each([
    { name: "an unknown key", text: "- address: \"*\"\n  reason: r\n  ignore: yes\n", problems: ['ops.yaml:3: unknown key "ignore": expected address, fields, outcomes, except, reason, until'] },
    { name: "a rule without reason", text: "- address: \"*\"\n", problems: ["ops.yaml:1: a rule without reason: expected why its findings are accepted"] },
    { name: "an empty reason", text: "- address: \"*\"\n  reason: \"  \"\n", problems: ['ops.yaml:2: reason "  " is not a reason: expected text saying why the findings are accepted'] },
    { name: "a reason that is not text", text: "- address: \"*\"\n  reason: [a]\n", problems: ['ops.yaml:2: reason ["a"] is not a reason: expected text saying why the findings are accepted'] },
    { name: "a rule without address", text: "- reason: r\n", problems: ["ops.yaml:1: a rule without address: expected the address (or a glob) of the findings it accepts"] },
    { name: "an empty glob", text: "- address: \"\"\n  reason: r\n", problems: ['ops.yaml:1: address "" is empty: expected an address or a glob of addresses (e.g. "Route/a1b2c3d4e5/*")'] },
    { name: "a glob with a control character", text: "- reason: r\n  address: \"Route/\\tx\"\n", problems: ['ops.yaml:2: address "Route/\\tx" holds the control character U+0009, which no address holds: expected printable characters, * and ?'] },
    { name: "an address that is not text", text: "- address: 12\n  reason: r\n", problems: ['ops.yaml:1: address 12 is not text: expected an address or a glob of addresses (e.g. "Route/a1b2c3d4e5/*")'] },
    { name: "a bad except glob", text: "- address: \"*\"\n  reason: r\n  except: [\"ok/*\", \"\"]\n", problems: ['ops.yaml:3: except[1] "" is empty: expected an address or a glob of addresses (e.g. "Route/a1b2c3d4e5/*")'] },
    { name: "a date that does not exist", text: "- address: \"*\"\n  reason: r\n  until: 2027-02-30\n", problems: ['ops.yaml:3: until "2027-02-30" is not a date: 2027-02 has no day 30; expected YYYY-MM-DD (e.g. 2027-01-31)'] },
    { name: "a date in another format", text: "- address: \"*\"\n  reason: r\n  until: 31/01/2027\n", problems: ['ops.yaml:3: until "31/01/2027" is not a date: expected YYYY-MM-DD (e.g. 2027-01-31)'] },
    { name: "a date that is a number", text: "- address: \"*\"\n  reason: r\n  until: 20270131\n", problems: ["ops.yaml:3: until 20270131 is not a date: expected YYYY-MM-DD (e.g. 2027-01-31)"] },
    { name: "fields that are not a list", text: "- address: \"*\"\n  reason: r\n  fields: authorizationScopes\n", problems: ['ops.yaml:3: fields "authorizationScopes" is not a list of text: expected a non-empty list such as [authorizationScopes]'] },
    { name: "fields that are not text", text: "- address: \"*\"\n  reason: r\n  fields: [1, a]\n", problems: ['ops.yaml:3: fields [1,"a"] is not a list of text: expected a non-empty list such as [authorizationScopes]'] },
    { name: "an empty fields list", text: "- address: \"*\"\n  reason: r\n  fields: []\n", problems: ["ops.yaml:3: fields [] is not a list of text: expected a non-empty list such as [authorizationScopes]"] },
    { name: "an unknown outcome", text: "- address: \"*\"\n  reason: r\n  outcomes: [drifted, gone]\n", problems: ['ops.yaml:3: outcomes[1] "gone" is not an outcome: expected one of in-sync, drifted, missing, unmanaged, conflict, refused, unknown'] },
    { name: "outcomes that are not a list", text: "- address: \"*\"\n  reason: r\n  outcomes: drifted\n", problems: ['ops.yaml:3: outcomes "drifted" is not a list of text: expected a non-empty list such as [drifted]'] },
    { name: "fields with outcomes other than drifted", text: "- address: \"*\"\n  reason: r\n  fields: [a]\n  outcomes: [drifted, missing]\n", problems: ['ops.yaml:4: outcomes ["drifted","missing"] with fields: fields narrow drifted resources only, expected outcomes [drifted] or none'] },
    { name: "a rule that is not a mapping", text: "- Route/*\n", problems: ['ops.yaml:1: a rule is "Route/*": expected a mapping with address and reason'] },
    { name: "a file that is a mapping", text: "address: \"*\"\nreason: r\n", problems: ["ops.yaml:1: holds a mapping: expected a YAML list of rules (- address: …; an empty file is [])"] },
    { name: "an empty file", text: "# nothing\n", problems: ["ops.yaml:1: holds nothing: expected a YAML list of rules (- address: …; an empty file is [])"] },
    { name: "a file that is text", text: "Route/*\n", problems: ['ops.yaml:1: holds "Route/*": expected a YAML list of rules (- address: …; an empty file is [])'] },
    { name: "a file of two documents", text: "- {address: a, reason: r}\n---\n- {address: b, reason: r}\n", problems: ["ops.yaml:2: holds 2 YAML documents: expected one list of rules"] },
    { name: "YAML that does not parse", text: "- address: [\n", problems: [expect.stringMatching(/^ops\.yaml:\d+: not valid YAML: /)] },
    {
      name: "aliases that expand too far",
      text: "- address: \"*\"\n  reason: r\n  fields: &b [&a [x,x,x,x,x,x,x,x,x,x], *a,*a,*a,*a,*a,*a,*a,*a,*a]\n  except: [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n",
      problems: [expect.stringMatching(/^ops\.yaml:3: fields \[\[/), "ops.yaml:4: except: excessive alias count indicates a resource exhaustion attack"],
    },
    { name: "a key written twice", text: "- address: a\n  address: b\n  reason: r\n", problems: [expect.stringMatching(/^ops\.yaml:2: not valid YAML: .*unique/)] },
  ])("refuses $name, naming file, line and value", ({ text, problems }) => {
    const parsed = parseIgnoreFile({ file: "ops.yaml", text });
    expect(parsed.rules).toEqual([]);
    expect(parsed.problems.map((problem) => `${problem.file}:${problem.line}: ${problem.message}`)).toEqual(problems);
  });

  it("refuses every problem of every rule of every file at once, in order, and keeps nothing", () => {
    const files = [
      { file: ".convergeignore.yaml", text: "- address: \"*\"\n  reason: fine\n- address: \"\"\n  until: 2027-13-01\n" },
      { file: "ops.yaml", text: "- address: \"Route/*\"\n  reason: r\n  bogus: 1\n" },
    ];
    const thrown = thrownBy(() => parseIgnoreFiles(files));
    expect(isIgnoreRulesError(thrown)).toBe(true);
    if (!isIgnoreRulesError(thrown)) return;
    expect(thrown.problems.map((problem) => `${problem.file}:${problem.line}`)).toEqual([".convergeignore.yaml:3", ".convergeignore.yaml:3", ".convergeignore.yaml:4", "ops.yaml:3"]);
    expect(thrown.message).toBe([
      "ignore rules are not valid (4 problems):",
      '  .convergeignore.yaml:3: address "" is empty: expected an address or a glob of addresses (e.g. "Route/a1b2c3d4e5/*")',
      "  .convergeignore.yaml:3: a rule without reason: expected why its findings are accepted",
      '  .convergeignore.yaml:4: until "2027-13-01" is not a date: 2027-13 has no day 01; expected YYYY-MM-DD (e.g. 2027-01-31)',
      '  ops.yaml:3: unknown key "bogus": expected address, fields, outcomes, except, reason, until',
    ].join("\n"));
  });
});

describe("calendarDateProblem and isRuleExpired", () => {
  it.each([
    { value: "2027-01-31", valid: true },
    { value: "2028-02-29", valid: true },
    { value: "2027-02-29", valid: false },
    { value: "2027-1-31", valid: false },
    { value: "2027-01-31T00:00:00Z", valid: false },
    { value: "", valid: false },
  ])("$value is a date: $valid", ({ value, valid }) => {
    expect(calendarDateProblem(value) === undefined).toBe(valid);
  });

  it.each([
    { now: "2027-01-30T12:00:00.000Z", expired: false },
    { now: "2027-01-31T23:59:59.999Z", expired: false },
    { now: "2027-02-01T00:00:00.000Z", expired: true },
    { now: "2028-01-01T00:00:00.000Z", expired: true },
  ])("a rule until 2027-01-31 at $now is expired: $expired (the whole day counts, in UTC)", ({ now, expired }) => {
    expect(isRuleExpired({ until: "2027-01-31" }, new Date(now))).toBe(expired);
  });

  it("never expires a rule without until", () => {
    expect(isRuleExpired({}, new Date("2999-01-01T00:00:00Z"))).toBe(false);
  });
});

describe("ruleAccepts", () => {
  const drifted = resource("Route/a1b2c3d4e5/POST /orders", "drifted", ["authorizerId", "authorizationScopes"]);
  it.each([
    { name: "an address glob and the default outcomes", rule: rule({ address: "Route/a1b2c3d4e5/*" }), target: drifted, accepts: true },
    { name: "the default outcomes, not in-sync", rule: rule({}), target: resource("Route/x/GET /", "in-sync"), accepts: false },
    { name: "in-sync when listed", rule: rule({ outcomes: ["in-sync"] }), target: resource("Route/x/GET /", "in-sync"), accepts: true },
    { name: "each finding by default: unknown", rule: rule({}), target: resource("Route/x/GET /", "unknown"), accepts: true },
    { name: "each finding by default: conflict", rule: rule({}), target: resource("Route/x/GET /", "conflict"), accepts: true },
    { name: "another outcome than listed", rule: rule({ outcomes: ["missing"] }), target: drifted, accepts: false },
    { name: "an address that does not match", rule: rule({ address: "Route/zzzzzzzzzz/*" }), target: drifted, accepts: false },
    { name: "an address an except matches", rule: rule({ address: "Route/*", except: ["Route/*/GET /admin", "Route/*/POST *"] }), target: drifted, accepts: false },
    { name: "an address no except matches", rule: rule({ address: "Route/*", except: ["Route/*/GET /admin"] }), target: drifted, accepts: true },
    { name: "fields listing every differing field", rule: rule({ fields: ["authorizationScopes", "authorizerId", "target"] }), target: drifted, accepts: true },
    { name: "fields missing one differing field (all or nothing)", rule: rule({ fields: ["authorizationScopes"] }), target: drifted, accepts: false },
    { name: "fields and a missing resource", rule: rule({ fields: ["routeKey", "target"] }), target: resource("Route/x/GET /", "missing", ["routeKey", "target"]), accepts: false },
    { name: "fields and an unmanaged resource", rule: rule({ fields: ["authorizationScopes"] }), target: resource("Route/x/GET /", "unmanaged"), accepts: false },
    { name: "terraform's attribute names in fields", rule: rule({ fields: ["authorization_scopes"] }), target: resource("Route/x/GET /", "drifted", ["authorization_scopes"]), accepts: true },
  ])("$name: $accepts", ({ rule: candidate, target, accepts }) => {
    expect(ruleAccepts(candidate, target)).toBe(accepts);
  });
});

describe("applyIgnoreRules", () => {
  const estate = () => report([
    resource("Route/a1b2c3d4e5/POST /orders", "drifted", ["authorizationScopes"]),
    resource("Route/a1b2c3d4e5/GET /admin", "drifted", ["authorizationScopes"]),
    resource("Route/a1b2c3d4e5/GET /stray", "unmanaged"),
    resource("RegionOptIn/self/ap-east-1", "missing"),
    resource("Route/a1b2c3d4e5/GET /orders", "in-sync"),
  ]);
  const rules = rulesOf([
    "- address: \"Route/a1b2c3d4e5/*\"",
    "  fields: [authorizationScopes]",
    "  except: [\"Route/a1b2c3d4e5/GET /admin\"]",
    "  reason: the IdP rotates scopes nightly",
    "- address: \"Route/a1b2c3d4e5/GET /stray\"",
    "  reason: made by hand, removed next sprint",
    "  until: 2027-01-31",
    "- address: \"*\"",
    "  outcomes: [unmanaged, drifted]",
    "  reason: second rule, reached only when the first does not accept",
    "",
  ].join("\n"));

  it("marks each finding with the first rule that accepts it and counts it as ignored, leaving the rest and the order alone", () => {
    const { report: marked, expired, ignored } = applyIgnoreRules(estate(), rules, new Date("2027-01-31T12:00:00Z"));
    expect(expired).toEqual([]);
    expect(ignored).toBe(3);
    expect(marked.resources.map((entry) => [entry.address, entry.ignoredBy?.line ?? null])).toEqual([
      ["RegionOptIn/self/ap-east-1", null],
      ["Route/a1b2c3d4e5/GET /admin", 8],
      ["Route/a1b2c3d4e5/GET /orders", null],
      ["Route/a1b2c3d4e5/GET /stray", 5],
      ["Route/a1b2c3d4e5/POST /orders", 1],
    ]);
    expect(marked.resources.at(-1)!.ignoredBy).toEqual({ file: "ops.yaml", line: 1, reason: "the IdP rotates scopes nightly" });
    expect(marked.summary).toMatchObject({ "in-sync": 1, drifted: 0, missing: 1, unmanaged: 0, ignored: 3, coverage: { managed: 3, live: 4 } });
    expect(driftExitCode(marked)).toBe(2);
    expect(marked.desiredFingerprint).toBe(estate().desiredFingerprint);
  });

  it("does not apply a rule past its until, and reports it as expired", () => {
    const { report: marked, expired, ignored } = applyIgnoreRules(estate(), rules, new Date("2027-02-01T00:00:00Z"));
    expect(expired.map((entry) => entry.line)).toEqual([5]);
    expect(ignored).toBe(3);
    // the stray route falls through to the next rule that accepts it
    expect(marked.resources.find((entry) => entry.address.endsWith("GET /stray"))!.ignoredBy!.line).toBe(8);
  });

  it("keeps a mark already set and exits 0 when every finding is ignored", () => {
    const once = applyIgnoreRules(report([resource("RegionOptIn/self/ap-east-1", "missing")]), rulesOf("- {address: \"RegionOptIn/*\", reason: first}\n", "a.yaml"), new Date());
    const twice = applyIgnoreRules(once.report, rulesOf("- {address: \"*\", reason: second}\n", "b.yaml"), new Date());
    expect(twice.ignored).toBe(0);
    expect(twice.report.resources[0]!.ignoredBy).toEqual({ file: "a.yaml", line: 1, reason: "first" });
    expect(driftExitCode(twice.report)).toBe(0);
  });

  it("marks each finding with the first rule in order that accepts it, whether that rule names the address or globs it", () => {
    const rules = rulesOf([
      "- {address: \"Route/api/*\", outcomes: [missing], reason: glob first}",
      "- {address: \"Route/api/GET /a\", reason: exact second}",
      "- {address: \"Route/api/GET /?\", reason: glob third}",
      "",
    ].join("\n"));
    const { report: marked } = applyIgnoreRules(report([
      resource("Route/api/GET /a", "missing"),
      resource("Route/api/GET /a", "unmanaged"),
      resource("Route/api/GET /b", "unmanaged"),
      resource("Route/api/GET /cc", "unmanaged"),
    ]), rules, new Date());
    expect(marked.resources.map((resource) => resource.ignoredBy?.reason ?? null)).toEqual(["glob first", "exact second", "glob third", null]);
  });
});

describe("foldIgnoreFiles", () => {
  const desired = "d".repeat(64);
  it("leaves the fingerprint of the desired state alone without ignore files", () => {
    expect(foldIgnoreFiles(desired, [])).toBe(desired);
  });

  it("changes with the text and the order of the files, not with their names", () => {
    const a = { file: "a.yaml", text: "- {address: \"*\", reason: a}\n" };
    const b = { file: "b.yaml", text: "- {address: \"*\", reason: b}\n" };
    const folded = foldIgnoreFiles(desired, [a, b]);
    expect(folded).toMatch(/^[0-9a-f]{64}$/);
    expect(folded).not.toBe(desired);
    expect(foldIgnoreFiles(desired, [b, a])).not.toBe(folded);
    expect(foldIgnoreFiles(desired, [{ ...a, text: `${a.text}# a comment\n` }, b])).not.toBe(folded);
    expect(foldIgnoreFiles(desired, [{ ...a, file: "elsewhere/a.yaml" }, b])).toBe(folded);
    expect(foldIgnoreFiles("e".repeat(64), [a, b])).not.toBe(folded);
  });
});

describe("baseline", () => {
  const findings = report([
    resource("Route/a1b2c3d4e5/POST /orders", "drifted", ["authorizerId", "authorizationScopes"]),
    resource("Route/a1b2c3d4e5/DELETE /orders/{id}", "missing", ["routeKey", "target"]),
    resource("Route/a1b2c3d4e5/$default", "refused"),
    resource("Route/a1b2c3d4e5/GET /we*rd?", "unmanaged"),
    resource("Integration/a1b2c3d4e5/twin", "unknown"),
    resource("AlternateContact/222222222222/SECURITY", "in-sync"),
    { ...resource("RegionOptIn/self/ap-east-1", "missing"), ignoredBy: { file: "old.yaml", line: 3, reason: "known" } },
  ]);

  it("gives one rule per finding of drifted, missing and unmanaged by default, with the drifted fields, not those already ignored", () => {
    expect(baselineRules(findings)).toEqual([
      { address: "Route/a1b2c3d4e5/DELETE /orders/{id}", outcome: "missing" },
      { address: "Route/a1b2c3d4e5/GET /we*rd?", outcome: "unmanaged" },
      { address: "Route/a1b2c3d4e5/POST /orders", outcome: "drifted", fields: ["authorizerId", "authorizationScopes"] },
    ]);
    expect(baselineRules(findings, ["refused", "unknown"]).map((entry) => entry.address)).toEqual(["Integration/a1b2c3d4e5/twin", "Route/a1b2c3d4e5/$default"]);
  });

  it("writes rules that read back and accept exactly those findings", () => {
    const text = renderIgnoreBaseline(findings, { reason: "accepted \"as is\"\nat the audit", until: "2027-01-31", reportFile: "drift.json" });
    expect(text.split("\n").slice(0, 6)).toEqual([
      '# converge drift-ignore: 3 rules accepting the findings of "drift.json" (generated 2026-06-01T00:00:00.000Z)',
      '- address: "Route/a1b2c3d4e5/DELETE /orders/{id}"',
      "  outcomes: [missing]",
      '  reason: "accepted \\"as is\\"\\nat the audit"',
      "  until: 2027-01-31",
      '- address: "Route/a1b2c3d4e5/GET /we*rd?"',
    ]);
    const rules = rulesOf(text, "baseline.yaml");
    expect(rules.map((entry) => [entry.line, entry.reason])).toEqual([[2, "accepted \"as is\"\nat the audit"], [6, "accepted \"as is\"\nat the audit"], [10, "accepted \"as is\"\nat the audit"]]);
    const { report: marked } = applyIgnoreRules(findings, rules, new Date("2027-01-01T00:00:00Z"));
    expect(marked.resources.filter((entry) => entry.ignoredBy?.file === "baseline.yaml").map((entry) => entry.address)).toEqual([
      "Route/a1b2c3d4e5/DELETE /orders/{id}",
      "Route/a1b2c3d4e5/GET /we*rd?",
      "Route/a1b2c3d4e5/POST /orders",
    ]);
    expect(marked.summary).toMatchObject({ drifted: 0, missing: 0, unmanaged: 0, refused: 1, unknown: 1, ignored: 4 });
  });

  it("does not accept new drift of a resource it took as drifted", () => {
    const rules = rulesOf(renderIgnoreBaseline(findings, { reason: "r" }));
    const later = report([resource("Route/a1b2c3d4e5/POST /orders", "drifted", ["authorizerId", "authorizationScopes", "target"])]);
    expect(applyIgnoreRules(later, rules, new Date()).ignored).toBe(0);
  });

  it("writes [] when there is no finding, which reads back as no rules", () => {
    const text = renderIgnoreBaseline(report([resource("Route/x/GET /", "in-sync")]), { reason: "r" });
    expect(text).toBe("# converge drift-ignore: 0 rules accepting the findings (generated 2026-06-01T00:00:00.000Z)\n[]\n");
    expect(rulesOf(text)).toEqual([]);
  });

  it("quotes control characters YAML does not allow as they are", () => {
    const text = renderIgnoreBaseline(report([resource("Route/x/GET /a\u0085b\u0090", "unmanaged")]), { reason: "tab\there" });
    expect(rulesOf(text)[0]).toMatchObject({ address: "Route/x/GET /a\u0085b\u0090", reason: "tab\there" });
  });
});

describe("parseOutcomeList (drift-ignore --only)", () => {
  it("reads outcomes of findings, once each", () => {
    expect(parseOutcomeList("drifted, missing,drifted")).toEqual(["drifted", "missing"]);
  });

  it.each(["in-sync", "drifted,gone", ""])("refuses %j", (text) => {
    expect(() => parseOutcomeList(text)).toThrow(/is not an outcome of a finding: expected a comma-separated list of drifted, missing, unmanaged, conflict, refused, unknown$/);
  });
});
