import { describe, expect, it } from "vitest";
import { parseShard } from "../../src/cli/commands/drift-command.js";
import { driftExitCode, driftReport, isDriftReportError, mergeDriftReports, parseDriftReport, summarizeDrift, type DriftReport, type DriftResource } from "../../src/reconcile/drift-report.js";
import { MARKDOWN_ROW_LIMIT, renderDriftAsJUnit, renderDriftAsMarkdown, renderDriftAsText } from "../../src/reconcile/render-drift.js";
import { elementsNamed, parseXml } from "./support/xml.js";
import { thrownBy } from "../support/thrown.js";

/** The drift report model, the shard flag, merging and the renderers, on reports built by hand. */

const resource = (address: string, outcome: DriftResource["outcome"], extra: Partial<DriftResource> = {}): DriftResource => ({
  address, kind: address.split("/")[0] as DriftResource["kind"], identity: address.split("/").slice(1).join("/"), outcome, fields: [], reason: null, source: null, ...extra,
});

const report = (resources: DriftResource[], extra: { shard?: DriftReport["shard"]; desiredFingerprint?: string; generatedAt?: string } = {}): DriftReport =>
  driftReport({ generatedAt: extra.generatedAt ?? "2026-01-01T00:00:00.000Z", shard: extra.shard, desiredFingerprint: extra.desiredFingerprint ?? "f".repeat(64), resources, coverage: { managed: 1, live: 1 } });

describe("driftExitCode", () => {
  it.each([
    { outcomes: [], code: 0 },
    { outcomes: ["in-sync", "refused"], code: 0 },
    { outcomes: ["in-sync", "drifted"], code: 2 },
    { outcomes: ["missing"], code: 2 },
    { outcomes: ["unmanaged", "refused"], code: 2 },
    { outcomes: ["unknown"], code: 3 },
    { outcomes: ["drifted", "missing", "unknown"], code: 3 },
    { outcomes: ["in-sync", "conflict"], code: 2 },
  ] as const)("is $code for $outcomes", ({ outcomes, code }) => {
    expect(driftExitCode({ summary: summarizeDrift(outcomes.map((outcome, i) => resource(`Route/api/GET /${i}`, outcome)), { managed: 0, live: 0 }) })).toBe(code);
  });

  it.each([
    { ignored: ["drifted"], rest: ["in-sync"], code: 0 },
    { ignored: ["unknown"], rest: ["missing"], code: 2 },
    { ignored: ["missing", "unmanaged"], rest: ["unknown"], code: 3 },
  ] as const)("leaves ignored findings out: $code for $rest with $ignored ignored", ({ ignored, rest, code }) => {
    const ignoredBy = { file: ".convergeignore.yaml", line: 1, reason: "known" };
    const resources = [
      ...ignored.map((outcome, i) => ({ ...resource(`Route/api/GET /i${i}`, outcome), ignoredBy })),
      ...rest.map((outcome, i) => resource(`Route/api/GET /r${i}`, outcome)),
    ];
    const summary = summarizeDrift(resources, { managed: 1, live: 2 });
    expect(summary.ignored).toBe(ignored.length);
    expect(driftExitCode({ summary })).toBe(code);
  });
});

describe("parseShard", () => {
  it.each([
    { text: "1/1", env: {}, shard: { index: 1, count: 1 } },
    { text: "1/4", env: {}, shard: { index: 1, count: 4 } },
    { text: "4/4", env: {}, shard: { index: 4, count: 4 } },
    { text: "auto/4", env: { JOB_COMPLETION_INDEX: "0" }, shard: { index: 1, count: 4 } },
    { text: "auto/4", env: { JOB_COMPLETION_INDEX: "3" }, shard: { index: 4, count: 4 } },
  ])("reads $text with $env", ({ text, env, shard }) => {
    expect(parseShard(text, env)).toEqual(shard);
  });

  it.each([
    { text: "0/4", env: {}, message: "shards are numbered from 1 to 4" },
    { text: "5/4", env: {}, message: "shards are numbered from 1 to 4" },
    { text: "1/0", env: {}, message: "expected K/N with 1 ≤ K ≤ N" },
    { text: "one/4", env: {}, message: "expected K/N" },
    { text: "1-4", env: {}, message: "expected K/N" },
    { text: "auto/4", env: {}, message: "needs JOB_COMPLETION_INDEX from 0 to 3 (set by a Kubernetes Indexed Job), received nothing" },
    { text: "auto/4", env: { JOB_COMPLETION_INDEX: "4" }, message: 'received "4"' },
    { text: "auto/4", env: { JOB_COMPLETION_INDEX: "-1" }, message: 'received "-1"' },
  ])("rejects $text with $env", ({ text, env, message }) => {
    expect(() => parseShard(text, env)).toThrow(message);
  });
});

describe("mergeDriftReports", () => {
  const a = resource("Route/api/GET /a", "drifted", { fields: [{ path: "target", desired: "integrations/x", live: null }] });
  const b = resource("AlternateContact/self/BILLING", "in-sync");
  const c = resource("RegionOptIn/self/ap-east-1", "unknown", { reason: "boom" });

  it("merges shards in any order into the whole report, dated by the earliest shard", () => {
    const merged = mergeDriftReports([
      { report: report([c], { shard: { index: 3, count: 3 }, generatedAt: "2026-01-01T00:00:02.000Z" }), file: "3.json" },
      { report: report([], { shard: { index: 2, count: 3 }, generatedAt: "2026-01-01T00:00:01.000Z" }), file: "2.json" },
      { report: report([a, b], { shard: { index: 1, count: 3 }, generatedAt: "2026-01-01T00:00:03.000Z" }), file: "1.json" },
    ]);
    // each shard's coverage is 1 of 1: the merged report adds them up
    expect(merged).toEqual({ ...report([a, b, c], { generatedAt: "2026-01-01T00:00:01.000Z" }), summary: { ...report([a, b, c]).summary, coverage: { managed: 3, live: 3, percent: 100 } } });
    expect(merged.resources.map((r) => r.address)).toEqual(["AlternateContact/self/BILLING", "RegionOptIn/self/ap-east-1", "Route/api/GET /a"]);
    expect(merged.summary).toEqual({ "in-sync": 1, drifted: 1, missing: 0, unmanaged: 0, conflict: 0, refused: 0, unknown: 1, ignored: 0, coverage: { managed: 3, live: 3, percent: 100 } });
  });

  it("passes a single whole report through", () => {
    const whole = report([a, b]);
    expect(mergeDriftReports([{ report: whole, file: "whole.json" }])).toEqual(whole);
  });

  it.each([
    { name: "no reports", inputs: [], message: "no reports to merge" },
    { name: "a missing shard", inputs: [[1, 3], [3, 3]], message: "shard 2/3 missing" },
    { name: "a shard twice", inputs: [[1, 2], [1, 2], [2, 2]], message: "are both shard 1/2" },
    { name: "shards of different runs", inputs: [[1, 2], [2, 3]], message: "but 0.json is of 2 shards" },
  ])("refuses $name", ({ inputs, message }) => {
    const reports = inputs.map(([index, count], i) => ({ report: report([], { shard: { index: index!, count: count! } }), file: `${i}.json` }));
    expect(() => mergeDriftReports(reports)).toThrow(message);
  });

  it("refuses shards of different desired state, a whole report among shards, and a resource in two shards", () => {
    const other = { report: report([], { shard: { index: 2, count: 2 }, desiredFingerprint: "0".repeat(64) }), file: "2.json" };
    expect(() => mergeDriftReports([{ report: report([], { shard: { index: 1, count: 2 } }), file: "1.json" }, other])).toThrow("2.json was made from other desired state or ignore rules than 1.json");
    expect(() => mergeDriftReports([{ report: report([]), file: "whole.json" }, { report: report([], { shard: { index: 1, count: 1 } }), file: "1.json" }])).toThrow("whole.json is a whole report");
    const twice = [1, 2].map((index) => ({ report: report([a], { shard: { index, count: 2 } }), file: `${index}.json` }));
    const error = thrownBy(() => mergeDriftReports(twice));
    expect(isDriftReportError(error)).toBe(true);
    expect((error as Error).message).toBe("Route/api/GET /a is reported by both 1.json and 2.json: shards must be disjoint");
  });
});

describe("parseDriftReport", () => {
  it("reads a report back unchanged through JSON", () => {
    const original = report([resource("Route/api/GET /a", "drifted", { fields: [{ path: "x", desired: { a: [1] }, live: null }], source: { file: "a.yaml", line: 3, column: 1 } })], { shard: { index: 1, count: 2 } });
    expect(parseDriftReport(JSON.parse(JSON.stringify(original)), "a.json")).toEqual(original);
  });

  it.each([
    { name: "another format version", json: { ...report([]), formatVersion: 1 }, message: "a.json is not a converge drift report (formatVersion 2): formatVersion: " },
    { name: "a plan", json: { formatVersion: 2, liveFingerprint: "x", actions: [] }, message: "a.json is not a converge drift report" },
    { name: "an unknown outcome", json: { ...report([]), resources: [{ ...resource("Route/a/b", "in-sync"), outcome: "fine" }] }, message: "resources.0.outcome" },
  ])("rejects $name", ({ json, message }) => {
    expect(() => parseDriftReport(json, "a.json")).toThrow(message);
  });
});

describe("renderers", () => {
  const nasty = 'a <b> & "c" \'d\' \u0001 \ud800 | `e`\nnext line';
  const nastyReport = report([
    resource("Route/api/GET /<&>", "unknown", { reason: nasty }),
    resource("Route/api/GET /drift", "drifted", { fields: [{ path: "description", desired: nasty, live: "x]]>y" }], source: { file: "dir/a&b.yaml", line: 7, column: 1 } }),
    resource("Route/api/GET /refused", "refused", { reason: nasty }),
    resource("Route/api/GET /fine", "in-sync"),
  ]);

  it("escapes everything XML cannot hold as is in JUnit, and the parse gives the text back", () => {
    const xml = renderDriftAsJUnit(nastyReport);
    const root = parseXml(xml);
    const cases = elementsNamed(root, "testcase");
    expect(cases.map((element) => element.attributes.name)).toEqual(["Route/api/GET /<&>", "Route/api/GET /drift", "Route/api/GET /fine", "Route/api/GET /refused"]);
    const cleaned = nasty.replace("\u0001", "\uFFFD").replace("\ud800", "\uFFFD");
    const error = cases[0]!.children[0]!;
    expect(error.name).toBe("error");
    expect(error.text).toBe(cleaned);
    expect(error.attributes.message).toBe(`could not be compared: ${cleaned}`);
    expect(cases[1]!.attributes.file).toBe("dir/a&b.yaml");
    expect(cases[1]!.children[0]!.text).toBe(`description: desired ${JSON.stringify(nasty)}, live "x]]>y"`);
    expect(cases[2]!.children).toEqual([]);
    expect(cases[3]!.children[0]!.attributes.message).toBe(`refused: ${cleaned}`);
    expect(elementsNamed(root, "testsuite")[0]!.attributes).toMatchObject({ tests: "4", failures: "1", errors: "1", skipped: "1" });
  });

  it("keeps markdown tables intact: pipes escaped, line breaks and backticks removed from cells", () => {
    const rows = renderDriftAsMarkdown(nastyReport).split("\n").filter((line) => line.startsWith("| unknown"));
    expect(rows).toEqual(["| unknown | `Route/api/GET /<&>` | a <b> & \"c\" 'd' \u0001 \ud800 \\| 'e' next line |"]);
  });

  it(`lists at most ${MARKDOWN_ROW_LIMIT} rows in markdown, then says how many more`, () => {
    const many = report(Array.from({ length: MARKDOWN_ROW_LIMIT + 7 }, (_, i) => resource(`Route/api/GET /r${String(i).padStart(4, "0")}`, "missing")));
    const lines = renderDriftAsMarkdown(many).split("\n");
    expect(lines.filter((line) => line.startsWith("| missing"))).toHaveLength(MARKDOWN_ROW_LIMIT);
    expect(lines).toContain("… and 7 more (see the JSON report).");
  });

  it("never says a coverage percentage beside resources that could not be read, in text and markdown", () => {
    const unread = report([resource("Route/api/GET /a", "in-sync"), resource("Route/api/GET /b", "unknown", { reason: "read failed" })]);
    expect(renderDriftAsText(unread, { color: false })).toContain("; coverage unknown (1 could not be read; 1 of 1 live resource read managed).\n");
    expect(renderDriftAsMarkdown(unread)).toContain("Coverage: **unknown** (1 could not be read; 1 of 1 live resources read managed)");
    expect(renderDriftAsText(report([resource("Route/api/GET /a", "in-sync")]), { color: false })).toContain("coverage 100% (1 of 1 live resource managed)");
  });

  it("colors text only when asked", () => {
    expect(renderDriftAsText(nastyReport, { color: true })).toContain("\u001b[33m~\u001b[0m");
    expect(renderDriftAsText(nastyReport, { color: false })).not.toContain("\u001b[");
    expect(renderDriftAsText(report([], { shard: { index: 2, count: 5 } }), { color: false })).toBe("converge drift (shard 2/5): No drift. Live state matches the desired state.\n\nDrift: 0 drifted, 0 missing, 0 unmanaged, 0 refused, 0 unknown, 0 in sync (0 resources); coverage 100% (1 of 1 live resource managed).\n");
  });
});
