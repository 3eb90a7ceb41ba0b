import { renderValue } from "../contract/field-issues.js";
import { describeVariables } from "../desired/variable-record.js";
import { describeSource, DRIFT_FOUND, DRIFT_OUTCOMES, isStateSource, type DriftOutcome, type DriftReport, type DriftResource } from "./drift-report.js";

/** Renderers of a drift report: text for people, markdown for CI summaries, JUnit XML for test dashboards. */

const SYMBOL: Readonly<Record<DriftOutcome, string>> = { "in-sync": " ", drifted: "~", missing: "+", unmanaged: "-", conflict: "x", refused: "!", unknown: "?" };
const COLOR: Readonly<Record<DriftOutcome, string>> = { "in-sync": "2", drifted: "33", missing: "32", unmanaged: "31", conflict: "31", refused: "35", unknown: "36" };
/** Order of the listing: what needs attention first (in-sync resources are not listed). */
export const LISTED_OUTCOMES: ReadonlyArray<DriftOutcome> = ["unknown", "conflict", "drifted", "missing", "unmanaged", "refused"];
/** At most this many table rows in markdown (a GitHub step summary holds at most 1 MiB). */
export const MARKDOWN_ROW_LIMIT = 500;

function paint(text: string, code: string, color: boolean): string {
  return color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** `converge drift`, or `converge drift (shard 1/4)` for a shard's report. */
export function driftTitle(report: DriftReport): string {
  return report.shard ? `converge drift (shard ${report.shard.index}/${report.shard.count})` : "converge drift";
}

/** `2 drifted, 1 missing, 0 unmanaged, 1 refused, 0 unknown, 40 in sync (44 resources)`, then conflicts and ignored ones when there are. */
export function driftSummaryLine(report: DriftReport): string {
  const s = report.summary;
  const more = [...(s.conflict > 0 ? [`${s.conflict} claimed twice`] : []), ...(s.ignored > 0 ? [`${s.ignored} ignored`] : [])];
  return `${s.drifted} drifted, ${s.missing} missing, ${s.unmanaged} unmanaged, ${s.refused} refused, ${s.unknown} unknown, `
    + `${s["in-sync"]} in sync${more.map((part) => `, ${part}`).join("")} (${report.resources.length} resources)`;
}

/**
 * `coverage 97.5% (39 of 40 live resources managed)`; `coverage unknown (…)` when some resource could
 * not be read, since what could not be read is not counted: a percentage then would be a false
 * "in sync" of the scope.
 */
export function driftCoverageLine(report: DriftReport): string {
  const { managed, live, percent } = report.summary.coverage;
  const counted = `${managed} of ${live} live resource${live === 1 ? "" : "s"} read managed`;
  if (report.summary.unknown > 0) return `coverage unknown (${report.summary.unknown} could not be read; ${counted})`;
  return `coverage ${percent}% (${managed} of ${live} live resource${live === 1 ? "" : "s"} managed)`;
}

/** Why an ignored resource does not count: `ignored by .convergeignore.yaml:3 (the IdP rotates scopes nightly)`. */
function ignoredNote(resource: DriftResource): string | undefined {
  return resource.ignoredBy ? `ignored by ${resource.ignoredBy.file}:${resource.ignoredBy.line} (${resource.ignoredBy.reason})` : undefined;
}

/** One sentence: no drift, drift found, or some resources could not be compared. */
export function driftHeadline(report: DriftReport): string {
  if (report.summary.unknown > 0) return "Some resources could not be compared; the others:";
  return DRIFT_OUTCOMES.some((outcome) => DRIFT_FOUND.has(outcome) && report.summary[outcome] > 0)
    ? "Drift found."
    : "No drift. Live state matches the desired state.";
}

function describeField(path: string, desired: unknown, live: unknown): string {
  return `${path}: desired ${renderValue(desired)}, live ${renderValue(live)}`;
}

function listed(report: DriftReport): DriftResource[] {
  return LISTED_OUTCOMES.flatMap((outcome) => report.resources.filter((resource) => resource.outcome === outcome));
}

/** The report as people read it: a headline, every resource that is not in sync, a summary line. */
export function renderDriftAsText(report: DriftReport, options: { readonly color: boolean }): string {
  const lines = [`${driftTitle(report)}: ${driftHeadline(report)}`];
  const shown = listed(report);
  if (shown.length > 0) lines.push("");
  for (const resource of shown) {
    const where = resource.source ? `  (${describeSource(resource.source)})` : "";
    const ignored = ignoredNote(resource);
    lines.push(`  ${paint(SYMBOL[resource.outcome], COLOR[resource.outcome], options.color)} `
      + `${paint(resource.address, "1", options.color)} ${resource.outcome}${ignored ? " (ignored)" : ""}${where}`);
    if (resource.reason) lines.push(`      ${resource.reason}`);
    if (ignored) lines.push(`      ${ignored}`);
    if (resource.outcome === "drifted") {
      const width = Math.max(0, ...resource.fields.map((field) => field.path.length));
      for (const field of resource.fields) {
        lines.push(`      ${field.path.padEnd(width)}  desired ${renderValue(field.desired)}, live ${renderValue(field.live)}`);
      }
    }
  }
  lines.push("", `Drift: ${driftSummaryLine(report)}; ${driftCoverageLine(report)}.`);
  if (report.variables) lines.push(`Variables: ${describeVariables(report.variables)}.`);
  return `${lines.join("\n")}\n`;
}

/** The report as a CI summary: a headline with the counts, one table row per resource that is not in sync. */
export function renderDriftAsMarkdown(report: DriftReport): string {
  const s = report.summary;
  const lines = [
    `### ${driftTitle(report)}`,
    "",
    `**${s.drifted}** drifted · **${s.missing}** missing · **${s.unmanaged}** unmanaged · **${s.unknown}** unknown`
      + `${s.conflict > 0 ? ` · **${s.conflict}** claimed twice` : ""}`
      + ` · ${s.refused} refused · ${s["in-sync"]} in sync${s.ignored > 0 ? ` · ${s.ignored} ignored` : ""}`,
    "",
    s.unknown > 0
      ? `Coverage: **unknown** (${s.unknown} could not be read; ${s.coverage.managed} of ${s.coverage.live} live resources read managed)`
      : `Coverage: **${s.coverage.percent}%** (${s.coverage.managed} of ${s.coverage.live} live resources managed)`,
    "",
    ...(report.variables ? [`Variables: ${escapeCell(describeVariables(report.variables))}`, ""] : []),
  ];
  const shown = listed(report);
  if (shown.length === 0) {
    lines.push("No drift: live state matches the desired state.", "");
  } else {
    lines.push("| outcome | resource | details |", "|---|---|---|");
    for (const resource of shown.slice(0, MARKDOWN_ROW_LIMIT)) {
      const ignored = ignoredNote(resource);
      const details = [
        ...(ignored ? [escapeCell(ignored)] : []),
        ...(resource.reason ? [escapeCell(resource.reason)] : []),
        ...(resource.outcome === "missing" ? ["declared, but not found in live state"] : []),
        ...(resource.outcome === "drifted"
          ? resource.fields.map((field) => `\`${escapeCell(field.path)}\`: `
            + `desired ${escapeCell(renderValue(field.desired))}, live ${escapeCell(renderValue(field.live))}`)
          : []),
      ].join("<br>");
      lines.push(`| ${resource.outcome}${ignored ? " (ignored)" : ""} | \`${escapeCell(resource.address)}\` | ${details} |`);
    }
    if (shown.length > MARKDOWN_ROW_LIMIT) lines.push("", `… and ${shown.length - MARKDOWN_ROW_LIMIT} more (see the JSON report).`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ").replace(/`/g, "'");
}

/**
 * The report as JUnit XML, one testsuite with one testcase per resource: drifted, missing and
 * unmanaged and conflicts are `<failure>`, unknown is `<error>`, refused and ignored findings are
 * `<skipped>` with the reason, in sync passes. Any CI that reads JUnit shows drift as failed test
 * cases. The coverage and the ignored count are the suite's properties.
 */
export function renderDriftAsJUnit(report: DriftReport): string {
  const s = report.summary;
  const failures = s.drifted + s.missing + s.unmanaged + s.conflict;
  const counts = `tests="${report.resources.length}" failures="${failures}" errors="${s.unknown}" skipped="${s.refused + s.ignored}"`;
  const name = xmlAttribute(driftTitle(report));
  const properties = {
    "coverage.managed": s.coverage.managed,
    "coverage.live": s.coverage.live,
    "coverage.percent": s.coverage.percent,
    ignored: s.ignored,
  };
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${name}" ${counts} time="0">`,
    `  <testsuite name="${name}" ${counts} time="0" timestamp="${xmlAttribute(report.generatedAt)}">`,
    "    <properties>",
    ...Object.entries(properties).map(([key, value]) => `      <property name="${key}" value="${value}"/>`),
    "    </properties>",
  ];
  for (const resource of report.resources) {
    const file = resource.source
      ? isStateSource(resource.source)
        ? ` file="${xmlAttribute(resource.source.state)}"`
        : ` file="${xmlAttribute(resource.source.file)}" line="${resource.source.line}"`
      : "";
    const open = `    <testcase classname="converge.drift.${xmlAttribute(resource.kind)}" name="${xmlAttribute(resource.address)}"${file} time="0"`;
    const body = junitBody(resource);
    lines.push(body === undefined ? `${open}/>` : `${open}>`, ...(body === undefined ? [] : [`      ${body}`, "    </testcase>"]));
  }
  lines.push("  </testsuite>", "</testsuites>");
  return `${lines.join("\n")}\n`;
}

function junitBody(resource: DriftResource): string | undefined {
  const reason = resource.reason ?? "";
  const ignored = ignoredNote(resource);
  if (ignored) return `<skipped message="${xmlAttribute(`${resource.outcome}, ${ignored}`)}"/>`;
  switch (resource.outcome) {
    case "in-sync":
      return undefined;
    case "refused":
      return `<skipped message="${xmlAttribute(`refused: ${reason}`)}"/>`;
    case "unknown":
      return `<error type="unknown" message="${xmlAttribute(`could not be compared: ${reason}`)}">${xmlText(reason)}</error>`;
    default: {
      const fields = resource.fields.map((field) => describeField(field.path, field.desired, field.live));
      const message = resource.outcome === "drifted"
        ? `drifted: ${fields.length} field${fields.length === 1 ? "" : "s"} differ${fields.length === 1 ? "s" : ""}`
        : resource.outcome === "missing" ? "missing: declared, but not found in live state" : `${resource.outcome}: ${reason}`;
      const detail = [...(reason ? [reason] : []), ...fields].join("\n");
      return `<failure type="${resource.outcome}" message="${xmlAttribute(message)}">${xmlText(detail)}</failure>`;
    }
  }
}

/**
 * Text as XML 1.0 character data: markup characters escaped, and characters XML cannot hold at all
 * (control characters, lone surrogates) replaced by U+FFFD.
 */
export function xmlText(text: string): string {
  return xmlSafe(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Text as an XML attribute value (inside double quotes); line breaks kept as character references. */
export function xmlAttribute(text: string): string {
  return xmlText(text).replace(/"/g, "&quot;").replace(/'/g, "&apos;").replace(/\n/g, "&#10;").replace(/\r/g, "&#13;").replace(/\t/g, "&#9;");
}

function xmlSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}
