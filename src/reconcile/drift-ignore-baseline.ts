import type { DriftOutcome, DriftReport } from "./drift-report.js";

/**
 * `converge drift-ignore` (docs/manual/drift.md, "Ignore rules"): the ignore rules that accept the
 * findings of a report as they are, a baseline to check later runs against. One rule per finding:
 * its exact address, its outcome and, for a drifted resource, its differing fields, so that a new
 * finding, or new drift of a resource already drifted, is still reported.
 */

/** The outcomes a baseline accepts unless told otherwise: drift that can be accepted (conflict, refused and unknown are not). */
export const DEFAULT_BASELINE_OUTCOMES: ReadonlyArray<DriftOutcome> = ["drifted", "missing", "unmanaged"];

export interface BaselineOptions {
  /** The reason every rule gives. */
  readonly reason: string;
  /** The outcomes to accept. @default DEFAULT_BASELINE_OUTCOMES */
  readonly outcomes?: ReadonlyArray<DriftOutcome>;
  /** `YYYY-MM-DD`: the last day the rules apply. */
  readonly until?: string | undefined;
  /** The report's file, named in the header comment. */
  readonly reportFile?: string | undefined;
}

/** One rule of a baseline, as it is written. */
export interface BaselineRule {
  readonly address: string;
  readonly outcome: DriftOutcome;
  /** For a drifted resource, the paths of its differing fields, in the report's order. */
  readonly fields?: ReadonlyArray<string> | undefined;
}

/**
 * The rules of a baseline: one per finding of the report whose outcome is one of `outcomes` and
 * that no rule ignores yet, in the report's order (by address); findings that would give the same
 * rule (a live resource two sources claim) give it once.
 */
export function baselineRules(report: Pick<DriftReport, "resources">, outcomes: ReadonlyArray<DriftOutcome> = DEFAULT_BASELINE_OUTCOMES): BaselineRule[] {
  const seen = new Set<string>();
  const rules: BaselineRule[] = [];
  for (const resource of report.resources) {
    if (resource.ignoredBy || resource.outcome === "in-sync" || !outcomes.includes(resource.outcome)) continue;
    const fields = resource.outcome === "drifted" ? [...new Set(resource.fields.map((field) => field.path))] : undefined;
    const key = JSON.stringify([resource.address, resource.outcome, fields]);
    if (seen.has(key)) continue;
    seen.add(key);
    rules.push({ address: resource.address, outcome: resource.outcome, ...(fields ? { fields } : {}) });
  }
  return rules;
}

/**
 * The baseline as an ignore file (YAML): a header comment, then the rules (or `[]` when the report
 * has no such finding). Every text is a double-quoted scalar, so addresses come back exactly.
 */
export function renderIgnoreBaseline(report: Pick<DriftReport, "resources" | "generatedAt">, options: BaselineOptions): string {
  const rules = baselineRules(report, options.outcomes);
  const from = options.reportFile !== undefined ? ` of ${yamlQuoted(options.reportFile)}` : "";
  const lines = [
    `# converge drift-ignore: ${rules.length} rule${rules.length === 1 ? "" : "s"} accepting the findings${from} (generated ${report.generatedAt})`,
  ];
  if (rules.length === 0) lines.push("[]");
  for (const rule of rules) {
    lines.push(`- address: ${yamlQuoted(rule.address)}`);
    lines.push(`  outcomes: [${rule.outcome}]`);
    if (rule.fields) lines.push(`  fields: [${rule.fields.map(yamlQuoted).join(", ")}]`);
    lines.push(`  reason: ${yamlQuoted(options.reason)}`);
    if (options.until !== undefined) lines.push(`  until: ${options.until}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A YAML double-quoted scalar of `text`: JSON's escapes (which YAML's double quotes understand), and
 * `\u` escapes for DEL and the C1 controls, which JSON leaves as they are and YAML does not allow.
 */
function yamlQuoted(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
