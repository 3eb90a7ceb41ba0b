import { createHash } from "node:crypto";
import { describeVariables } from "../desired/variable-record.js";
import { describeSource, type DriftOutcome, type DriftReport, type DriftResource } from "./drift-report.js";
import { driftCoverageLine, driftHeadline, driftSummaryLine, driftTitle, LISTED_OUTCOMES } from "./render-drift.js";

/**
 * The drift report as one self-contained HTML page, for people who open a CI artifact rather than a
 * terminal: the outcome counts, then every resource, what is not in sync first, each with its
 * address, kind, source file:line, reason, and desired against live per field.
 *
 * - Self-contained: inline CSS and one small inline script, nothing fetched. A Content-Security-Policy
 *   allows exactly that style and that script by their sha256 hashes, and nothing else: no other
 *   script can run in the page, even if some text escaped its escaping.
 * - Every value from the report (addresses, file names, reasons, field values) is HTML-escaped; the
 *   script reads the page's text, never writes markup.
 * - Readable without script: every row is in the HTML, grouped by outcome. The script only shows the
 *   filter form (outcome, kind, search) and hides the rows that do not match.
 * - Large reports: rows are plain blocks with `content-visibility: auto`, so a browser lays out only
 *   what is on screen; the in-sync rows (most of a large estate) have no field table.
 */

/** A group of the page: an outcome, or the findings ignore rules accepted (whatever their outcome). */
type PageGroup = DriftOutcome | "ignored";

/** Group order of the page: what needs attention first, then what is in sync, then what ignore rules accepted. */
const PAGE_ORDER: ReadonlyArray<PageGroup> = [...LISTED_OUTCOMES, "in-sync", "ignored"];

function groupOf(resource: DriftResource): PageGroup {
  return resource.ignoredBy ? "ignored" : resource.outcome;
}

/** A field value longer than this (as JSON) is cut, with a note; the JSON report has it whole. */
export const HTML_VALUE_LIMIT = 10_000;

const STYLE = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--line:#d1d9e0;--panel:#f6f8fa;
--in-sync:#1a7f37;--drifted:#9a6700;--missing:#0969da;--unmanaged:#cf222e;--conflict:#a40e26;--refused:#8250df;--unknown:#bc4c00;--ignored:#59636e}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--line:#3d444d;--panel:#151b23;
--in-sync:#3fb950;--drifted:#d29922;--missing:#4493f8;--unmanaged:#f85149;--conflict:#ff7b72;--refused:#ab7df8;--unknown:#db6d28;--ignored:#9198a1}}
*{box-sizing:border-box}
body{margin:0;padding:1.5rem 2rem 3rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.75rem 0 .5rem;padding-bottom:.25rem;border-bottom:1px solid var(--line)}
code{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.meta,.count,footer{color:var(--muted)}.headline{font-size:1.05rem;margin:.25rem 0}
.summary{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0;padding:0;list-style:none}
.summary a{display:block;min-width:7.5rem;padding:.5rem .75rem;border:1px solid var(--line);border-left:4px solid;border-radius:6px;color:inherit;text-decoration:none;background:var(--panel)}
.summary b{display:block;font-size:1.4rem}
form{display:flex;flex-wrap:wrap;gap:.75rem 1.25rem;align-items:end;margin:1rem 0;padding:.75rem;border:1px solid var(--line);border-radius:6px;background:var(--panel);position:sticky;top:0;z-index:1}
form[hidden]{display:none}label{display:flex;flex-direction:column;gap:.2rem;font-size:12px;color:var(--muted)}
select,input{font:inherit;padding:.3rem .4rem;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px}input{width:22rem;max-width:70vw}
.r{content-visibility:auto;contain-intrinsic-size:auto 2rem;display:grid;grid-template-columns:6.5rem minmax(0,1fr) auto;gap:.1rem .75rem;align-items:baseline;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
.r[hidden],.g[hidden]{display:none}
.r code{overflow-wrap:anywhere}.s{color:var(--muted);font-size:12px;text-align:right;overflow-wrap:anywhere}
.o{font-size:12px;font-weight:600}
.why,.r table{grid-column:2/-1}.why{margin:0;color:var(--muted)}
table{margin:.2rem 0;border-collapse:collapse;width:100%;table-layout:fixed}
th,td{text-align:left;vertical-align:top;padding:.2rem .5rem;border:1px solid var(--line)}th{font-weight:600;background:var(--panel);font-size:12px}
th:first-child{width:22%}td code{white-space:pre-wrap}
.cut{color:var(--muted);font-style:italic}
${PAGE_ORDER.map((outcome) => `.o-${outcome} a,.o-${outcome} .o,.g.o-${outcome} h2{border-color:var(--${outcome});color:var(--${outcome})}`).join("\n")}
`;

// The script reads the page and sets `hidden`; it never builds markup from the report's text.
const SCRIPT = `
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var outcome = document.getElementById("f-outcome");
  var kind = document.getElementById("f-kind");
  var search = document.getElementById("f-search");
  var count = document.getElementById("f-count");
  var groups = Array.prototype.map.call(document.querySelectorAll("section.g"), function (section) {
    return { section: section, outcome: section.getAttribute("data-outcome"), rows: Array.prototype.map.call(section.querySelectorAll(".r"), function (row) {
      return { row: row, kind: row.getAttribute("data-kind"), text: null };
    }) };
  });
  var total = groups.reduce(function (sum, group) { return sum + group.rows.length; }, 0);
  function wanted(groupOutcome) {
    var chosen = outcome.value;
    return chosen === "" || (chosen === "attention" ? groupOutcome !== "in-sync" : chosen === groupOutcome);
  }
  function apply() {
    var query = search.value.trim().toLowerCase();
    var kindChosen = kind.value;
    var shown = 0;
    groups.forEach(function (group) {
      if (!wanted(group.outcome)) { group.section.hidden = true; return; }
      var visible = 0;
      group.rows.forEach(function (entry) {
        var match = (kindChosen === "" || entry.kind === kindChosen);
        if (match && query !== "") {
          if (entry.text === null) entry.text = entry.row.textContent.toLowerCase();
          match = entry.text.indexOf(query) !== -1;
        }
        if (entry.row.hidden === match) entry.row.hidden = !match;
        if (match) visible += 1;
      });
      group.section.hidden = visible === 0;
      shown += visible;
    });
    count.textContent = shown === total ? total + " resources" : shown + " of " + total + " resources";
    document.body.setAttribute("data-shown", String(shown));
  }
  var timer = 0;
  search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 120); });
  outcome.addEventListener("change", apply);
  kind.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
  Array.prototype.forEach.call(document.querySelectorAll(".summary a[data-outcome]"), function (link) {
    link.addEventListener("click", function () { outcome.value = link.getAttribute("data-outcome"); apply(); });
  });
  form.hidden = false;
  apply();
})();
`;

function sha256Source(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/** No network, no plugins, no forms sent anywhere; only the page's own style and script, by hash. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${sha256Source(STYLE)}`,
  `script-src ${sha256Source(SCRIPT)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML character data or a quoted attribute value: `& < > " '` escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function htmlValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? "nothing" : JSON.stringify(value) ?? String(value);
  } catch {
    text = "(value cannot be shown)";
  }
  if (text.length <= HTML_VALUE_LIMIT) return `<code>${escapeHtml(text)}</code>`;
  return `<code>${escapeHtml(text.slice(0, HTML_VALUE_LIMIT))}</code> `
    + `<span class="cut">(cut at ${HTML_VALUE_LIMIT.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters; `
    + `the JSON report has it whole)</span>`;
}

function renderResource(resource: DriftResource, out: string[]): void {
  const source = resource.source ? describeSource(resource.source) : "";
  out.push(
    `<div class="r" data-kind="${escapeHtml(resource.kind)}"><span class="o">${resource.outcome}</span>`
      + `<code>${escapeHtml(resource.address)}</code><span class="s">${escapeHtml(source)}</span>`,
  );
  if (resource.ignoredBy) {
    const { file, line, reason } = resource.ignoredBy;
    out.push(`<p class="why">ignored by ${escapeHtml(`${file}:${line}`)}: ${escapeHtml(reason)}</p>`);
  }
  if (resource.reason) out.push(`<p class="why">${escapeHtml(resource.reason)}</p>`);
  if (resource.fields.length > 0) {
    out.push("<table><thead><tr><th>field</th><th>desired</th><th>live</th></tr></thead><tbody>");
    for (const field of resource.fields) {
      out.push(`<tr><td><code>${escapeHtml(field.path)}</code></td><td>${htmlValue(field.desired)}</td><td>${htmlValue(field.live)}</td></tr>`);
    }
    out.push("</tbody></table>");
  }
  out.push("</div>\n");
}

/** What another face of converge puts around a drift report on its page (the continuous reconciler's status page). */
export interface HtmlPageOptions {
  /** The page's heading, instead of "converge drift". */
  readonly title?: string | undefined;
  /** Lines shown under the headline, each a paragraph (plain text). */
  readonly notices?: ReadonlyArray<string> | undefined;
  /** Reload the page this often (a status page left open). */
  readonly refreshSeconds?: number | undefined;
}

/** The whole page. Pure: the same report (and options) give the same bytes. */
export function renderDriftAsHtml(report: DriftReport, options: HtmlPageOptions = {}): string {
  const title = options.title ?? driftTitle(report);
  const byGroup = new Map<PageGroup, DriftResource[]>(PAGE_ORDER.map((group) => [group, []]));
  for (const resource of report.resources) byGroup.get(groupOf(resource))!.push(resource);
  const kinds = [...new Set(report.resources.map((resource) => resource.kind))].sort();
  const out: string[] = [
    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY)}">\n`,
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n",
    options.refreshSeconds !== undefined ? `<meta http-equiv="refresh" content="${Math.max(1, Math.round(options.refreshSeconds))}">\n` : "",
    `<title>${escapeHtml(`${title}: ${driftSummaryLine(report)}`)}</title>\n`,
    `<style>${STYLE}</style>\n</head>\n<body>\n<header>\n`,
    `<h1>${escapeHtml(title)}</h1>\n<p class="headline">${escapeHtml(driftHeadline(report))}</p>\n`,
    ...(options.notices ?? []).map((notice) => `<p class="notice">${escapeHtml(notice)}</p>\n`),
    `<p class="meta">Live state read at <time datetime="${escapeHtml(report.generatedAt)}">${escapeHtml(report.generatedAt)}</time>`
      + ` · ${report.resources.length.toLocaleString("en-US")} resources`
      + ` · desired state <code title="desiredFingerprint">${escapeHtml(report.desiredFingerprint.slice(0, 12))}</code>`
      + (report.variables ? ` · <span class="variables">${escapeHtml(describeVariables(report.variables))}</span>` : "")
      + ` · <span class="coverage">${escapeHtml(driftCoverageLine(report))}</span></p>\n`,
    "</header>\n<ul class=\"summary\" aria-label=\"outcomes\">\n",
  ];
  for (const outcome of PAGE_ORDER) {
    out.push(`<li class="o-${outcome}"><a href="#g-${outcome}" data-outcome="${outcome}">`
      + `<b data-count="${outcome}">${report.summary[outcome]}</b> ${outcome}</a></li>\n`);
  }
  out.push(
    "</ul>\n<form id=\"filters\" role=\"search\" hidden>\n",
    `<label>outcome <select id="f-outcome"><option value="">all</option><option value="attention">not in sync</option>`
      + `${PAGE_ORDER.map((outcome) => `<option value="${outcome}">${outcome}</option>`).join("")}</select></label>\n`,
    `<label>kind <select id="f-kind"><option value="">all</option>`
      + `${kinds.map((kind) => `<option value="${escapeHtml(kind)}">${escapeHtml(kind)}</option>`).join("")}</select></label>\n`,
    "<label>search <input id=\"f-search\" type=\"search\" placeholder=\"address, file, field or value\" autocomplete=\"off\"></label>\n",
    "<output id=\"f-count\" class=\"count\"></output>\n</form>\n<main>\n",
  );
  for (const outcome of PAGE_ORDER) {
    const resources = byGroup.get(outcome)!;
    if (resources.length === 0) continue;
    out.push(`<section class="g o-${outcome}" id="g-${outcome}" data-outcome="${outcome}">\n`
      + `<h2>${outcome} · ${resources.length.toLocaleString("en-US")}</h2>\n`);
    for (const resource of resources) renderResource(resource, out);
    out.push("</section>\n");
  }
  if (report.resources.length === 0) out.push("<p>No resources: the desired state declares nothing.</p>\n");
  out.push(
    "</main>\n<footer><p>converge drift report, formatVersion ", String(report.formatVersion),
    ". Desired and live values are JSON; <code>null</code> is absent. "
      + "The JSON report (<code>--report FILE.json</code>) holds the same resources for machines.</p></footer>\n",
    `<script>${SCRIPT}</script>\n</body>\n</html>\n`,
  );
  return out.join("");
}
