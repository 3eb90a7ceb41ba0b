import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { driftReport, type DriftReport, type DriftResource } from "../../src/reconcile/drift-report.js";
import { escapeHtml, HTML_VALUE_LIMIT, renderDriftAsHtml } from "../../src/reconcile/render-drift-html.js";

/**
 * The HTML drift report as text: what it escapes, what its Content-Security-Policy allows, that it
 * references nothing outside itself, and the order of its groups. The page in a real browser is
 * test/drift/report-browser.test.ts.
 */

const resource = (address: string, outcome: DriftResource["outcome"], extra: Partial<DriftResource> = {}): DriftResource => ({
  address, kind: address.split("/")[0] as DriftResource["kind"], identity: address.split("/").slice(1).join("/"), outcome, fields: [], reason: null, source: null, ...extra,
});

const report = (resources: DriftResource[], extra: Partial<Pick<DriftReport, "shard">> = {}): DriftReport =>
  driftReport({ generatedAt: "2026-01-01T00:00:00.000Z", desiredFingerprint: "f".repeat(64), resources, coverage: { managed: 1, live: 2 }, ...extra });

const HOSTILE = `</script><script>alert("x")</script><img src=x onerror='alert(1)'> & &amp;`;

function scriptsOf(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
}

function stylesOf(html: string): string[] {
  return [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
}

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

describe("escapeHtml", () => {
  it.each([
    ["<script>", "&lt;script&gt;"],
    ["</script>", "&lt;/script&gt;"],
    [`a "b" 'c'`, "a &quot;b&quot; &#39;c&#39;"],
    ["fish & chips &amp;", "fish &amp; chips &amp;amp;"],
    ["plain text", "plain text"],
  ])("escapes %j", (text, escaped) => {
    expect(escapeHtml(text)).toBe(escaped);
  });
});

describe("renderDriftAsHtml", () => {
  const hostile = report([
    resource(`Route/api/GET /${HOSTILE}`, "drifted", {
      fields: [{ path: `spec.${HOSTILE}`, desired: HOSTILE, live: { [HOSTILE]: [HOSTILE] } }],
      reason: HOSTILE,
      source: { file: `dir/${HOSTILE}.yaml`, line: 7, column: 1 },
    }),
    resource("AlternateContact/self/SECURITY", "in-sync", { source: { file: "a&b.yaml", line: 1, column: 1 } }),
  ]);
  const html = renderDriftAsHtml(hostile);

  it("escapes every value: addresses, field paths, desired and live values, reasons, file names", () => {
    // the page's own script is the only script element, and no value opened an element
    expect(scriptsOf(html)).toHaveLength(1);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).not.toContain("<img");
    expect(html).not.toContain(`alert("x")`);
    expect(html).toContain(escapeHtml(`Route/api/GET /${HOSTILE}`));
    expect(html).toContain(escapeHtml(`spec.${HOSTILE}`));
    expect(html).toContain(escapeHtml(JSON.stringify(HOSTILE)));
    expect(html).toContain(escapeHtml(JSON.stringify({ [HOSTILE]: [HOSTILE] })));
    expect(html).toContain(`<p class="why">${escapeHtml(HOSTILE)}</p>`);
    expect(html).toContain(escapeHtml(`dir/${HOSTILE}.yaml:7`));
    expect(html).toContain("a&amp;b.yaml:1");
  });

  it("allows exactly its own style and script, by hash, and nothing from the network", () => {
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]?.replaceAll("&#39;", "'");
    expect(policy).toBeDefined();
    const directives = Object.fromEntries(policy!.split(";").map((directive) => directive.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(scriptsOf(html).map(sha256));
    expect(directives["style-src"]).toEqual(stylesOf(html).map(sha256));
    expect(directives["img-src"]).toEqual(["'none'"]);
    // the policy comes before any style or script, so that it governs them
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"));
    // nothing to fetch: no element with a src, no link but to the page's own anchors, no CSS url() or @import
    const tags = html.match(/<[a-z][^>]*>/g)!;
    expect(tags.filter((tag) => /\ssrc=|^<link/.test(tag))).toEqual([]);
    expect(tags.flatMap((tag) => [...tag.matchAll(/\shref="([^"]*)"/g)].map((match) => match[1])).filter((href) => !href!.startsWith("#"))).toEqual([]);
    expect(stylesOf(html).join("")).not.toMatch(/@import|url\(/);
    // no inline event handlers or style attributes (the policy would block them anyway)
    expect(tags.filter((tag) => /\son[a-z]+=|\sstyle=/.test(tag))).toEqual([]);
  });

  it("lists what is not in sync first, in the text report's order, then what is in sync, with a count for each outcome", () => {
    const mixed = report([
      resource("Route/api/GET /a", "in-sync"),
      resource("Route/api/GET /b", "refused", { reason: "managed" }),
      resource("Route/api/GET /c", "drifted", { fields: [{ path: "target", desired: "integrations/x", live: null }] }),
      resource("Route/api/GET /d", "unknown", { reason: "read failed" }),
      resource("Route/api/GET /e", "missing", { fields: [{ path: "routeKey", desired: "GET /e", live: null }] }),
      resource("Integration/api/f", "unmanaged", { reason: "declared by no document" }),
      resource("Route/api/GET /g", "drifted", { fields: [{ path: "authorizationType", desired: "JWT", live: "NONE" }] }),
    ]);
    const page = renderDriftAsHtml(mixed);
    const groups = [...page.matchAll(/<section class="g o-([a-z-]+)" id="g-\1" data-outcome="\1">/g)].map((match) => match[1]);
    expect(groups).toEqual(["unknown", "drifted", "missing", "unmanaged", "refused", "in-sync"]);
    // one resource could not be read: no percentage beside it
    expect(page).toContain('<span class="coverage">coverage unknown (1 could not be read; 1 of 2 live resources read managed)</span>');
    const counts = Object.fromEntries([...page.matchAll(/<b data-count="([a-z-]+)">(\d+)<\/b>/g)].map((match) => [match[1], Number(match[2])]));
    const { coverage: _coverage, ...counted } = mixed.summary;
    expect(counts).toEqual(counted);
    const addresses = [...page.matchAll(/<span class="o">([a-z-]+)<\/span><code>([^<]+)<\/code>/g)].map((match) => `${match[1]} ${match[2]}`);
    expect(addresses).toEqual([
      "unknown Route/api/GET /d", "drifted Route/api/GET /c", "drifted Route/api/GET /g", "missing Route/api/GET /e",
      "unmanaged Integration/api/f", "refused Route/api/GET /b", "in-sync Route/api/GET /a",
    ]);
    expect(page).toContain("<tr><td><code>authorizationType</code></td><td><code>&quot;JWT&quot;</code></td><td><code>&quot;NONE&quot;</code></td></tr>");
  });

  it("offers a filter for each outcome and each kind present, behind a form the script shows", () => {
    const kindSelect = /<select id="f-kind">(.*?)<\/select>/.exec(html)![1]!;
    const kinds = [...kindSelect.matchAll(/<option value="([^"]*)">/g)].map((match) => match[1]);
    expect(kinds).toEqual(["", "AlternateContact", "Route"]);
    const outcomeSelect = /<select id="f-outcome">(.*?)<\/select>/.exec(html)![1]!;
    expect([...outcomeSelect.matchAll(/<option value="([^"]*)">/g)].map((match) => match[1])).toEqual(["", "attention", "unknown", "conflict", "drifted", "missing", "unmanaged", "refused", "in-sync", "ignored"]);
    expect(html).toMatch(/<form id="filters" role="search" hidden>/);
  });

  it("names a shard in its title and cuts a very long value with a note", () => {
    const long = "x".repeat(HTML_VALUE_LIMIT + 5);
    const page = renderDriftAsHtml(report([resource("Route/api/GET /a", "drifted", { fields: [{ path: "p", desired: long, live: null }] })], { shard: { index: 2, count: 4 } }));
    expect(page).toContain("<h1>converge drift (shard 2/4)</h1>");
    expect(page).toContain(`(cut at 10,000 of ${(long.length + 2).toLocaleString("en-US")} characters; the JSON report has it whole)`);
    expect(page).not.toContain(long);
  });

  it("is the same page for the same report, and says so when there is nothing", () => {
    expect(renderDriftAsHtml(hostile)).toBe(html);
    expect(renderDriftAsHtml(report([]))).toContain("No resources: the desired state declares nothing.");
  });
});
