import { matchesAddressGlob } from "./drift-ignore-glob.js";
import { isRuleExpired, type IgnoreRule } from "./drift-ignore-rules.js";
import { driftReport, type DriftReport, type DriftResource } from "./drift-report.js";

/**
 * Applying ignore rules to a drift report (docs/manual/drift.md, "Ignore rules"): a finding a rule
 * accepts stays in the report, marked `ignoredBy`, counted as ignored and out of the exit code.
 * Rules are read by drift-ignore-rules.ts.
 */

/**
 * Whether `rule` accepts `resource`: its address matches the rule's, none of its `except`, its
 * outcome is one of the rule's, and, when the rule lists `fields`, the resource is drifted and
 * every field that differs is listed (all or nothing: one other differing field and it is not).
 * Expiry is not looked at here (see applyIgnoreRules).
 */
export function ruleAccepts(rule: IgnoreRule, resource: Pick<DriftResource, "address" | "outcome" | "fields">): boolean {
  if (!rule.outcomes.includes(resource.outcome)) return false;
  if (!matchesAddressGlob(rule.address, resource.address)) return false;
  if (rule.except.some((glob) => matchesAddressGlob(glob, resource.address))) return false;
  if (rule.fields === undefined) return true;
  const listed = rule.fields;
  return resource.outcome === "drifted" && resource.fields.every((field) => listed.includes(field.path));
}

/** What applying rules did: the report with `ignoredBy` set, the rules that were expired (not applied), and how many findings were ignored. */
export interface IgnoredReport {
  readonly report: DriftReport;
  readonly expired: ReadonlyArray<IgnoreRule>;
  /** Findings this call marked (one already marked keeps its mark and is not counted). */
  readonly ignored: number;
}

/**
 * Marks every resource the first rule (in order) that accepts it, among the rules not expired at
 * `now`, with that rule's file, line and reason, and counts the report again (driftReport). A
 * resource already marked keeps its mark.
 */
export function applyIgnoreRules(report: DriftReport, rules: ReadonlyArray<IgnoreRule>, now: Date): IgnoredReport {
  const expired = rules.filter((rule) => isRuleExpired(rule, now));
  const candidatesOf = ruleIndex(rules.filter((rule) => !isRuleExpired(rule, now)));
  let ignored = 0;
  const resources = report.resources.map((resource): DriftResource => {
    if (resource.ignoredBy) return resource;
    const rule = candidatesOf(resource.address).find((candidate) => ruleAccepts(candidate, resource));
    if (!rule) return resource;
    ignored += 1;
    return { ...resource, ignoredBy: { file: rule.file, line: rule.line, reason: rule.reason } };
  });
  return {
    report: driftReport({
      generatedAt: report.generatedAt,
      shard: report.shard,
      desiredFingerprint: report.desiredFingerprint,
      variables: report.variables,
      resources,
      coverage: report.summary.coverage,
    }),
    expired,
    ignored,
  };
}

/**
 * The rules that may accept an address, in their order: those whose address is a glob, and those
 * that name exactly this address (looked up, not matched one by one: a baseline holds a rule per
 * finding, and a report of thousands of findings would otherwise match every rule against every
 * resource).
 */
function ruleIndex(rules: ReadonlyArray<IgnoreRule>): (address: string) => ReadonlyArray<IgnoreRule> {
  const isGlob = (address: string) => address.includes("*") || address.includes("?");
  const order = new Map(rules.map((rule, index) => [rule, index] as const));
  const globs = rules.filter((rule) => isGlob(rule.address));
  const exact = new Map<string, IgnoreRule[]>();
  for (const rule of rules) {
    if (isGlob(rule.address)) continue;
    const list = exact.get(rule.address);
    if (list) list.push(rule);
    else exact.set(rule.address, [rule]);
  }
  return (address) => {
    const named = exact.get(address);
    if (named === undefined) return globs;
    return [...named, ...globs].sort((a, b) => order.get(a)! - order.get(b)!);
  };
}
