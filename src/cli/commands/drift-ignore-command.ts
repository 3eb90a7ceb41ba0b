import { DEFAULT_BASELINE_OUTCOMES, renderIgnoreBaseline } from "../../reconcile/drift-ignore-baseline.js";
import { calendarDateProblem, isRuleExpired } from "../../reconcile/drift-ignore-rules.js";
import { DRIFT_OUTCOMES, type DriftOutcome } from "../../reconcile/drift-report.js";
import { CliError } from "../cli-error.js";
import { readDriftReportFile } from "../drift-report-file.js";

export interface DriftIgnoreFlags {
  /** The reason every rule gives: required, never blank. */
  readonly reason: string;
  /** Comma-separated outcomes to accept. @default "drifted,missing,unmanaged" */
  readonly only?: string | undefined;
  /** `YYYY-MM-DD`: the last day (UTC) the rules apply. */
  readonly until?: string | undefined;
}

/**
 * `converge drift-ignore REPORT.json --reason TEXT`: prints on stdout the ignore rules that accept
 * every finding of the report (a baseline, docs/manual/drift.md "Ignore rules"); exit 0. The flags
 * are checked before the report is read.
 */
export async function driftIgnoreCommand(reportFile: string, flags: DriftIgnoreFlags, now: Date = new Date()): Promise<number> {
  const reason = flags.reason;
  if (reason.trim() === "") throw new CliError(`--reason ${JSON.stringify(reason)} is blank: expected why the findings are accepted`);
  const outcomes = flags.only === undefined ? DEFAULT_BASELINE_OUTCOMES : parseOutcomeList(flags.only);
  if (flags.until !== undefined) checkUntil(flags.until, now);
  const report = await readDriftReportFile(reportFile);
  process.stdout.write(renderIgnoreBaseline(report, { reason, outcomes, until: flags.until, reportFile }));
  return 0;
}

/** `--only drifted,missing`: outcomes that are findings (every one but in-sync), at least one. */
export function parseOutcomeList(text: string): DriftOutcome[] {
  const findings = DRIFT_OUTCOMES.filter((outcome) => outcome !== "in-sync");
  const names = text.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(findings as ReadonlyArray<string>).includes(name));
  if (unknown.length > 0) {
    throw new CliError(`--only ${JSON.stringify(text)}: ${unknown.map((name) => JSON.stringify(name)).join(", ")} `
      + `${unknown.length === 1 ? "is not an outcome" : "are not outcomes"} of a finding: expected a comma-separated list of ${findings.join(", ")}`);
  }
  return [...new Set(names)] as DriftOutcome[];
}

/** `--until`: a calendar date not yet over (a baseline that has expired already would accept nothing). */
function checkUntil(until: string, now: Date): void {
  const problem = calendarDateProblem(until);
  if (problem) throw new CliError(`--until ${JSON.stringify(until)} ${problem}`);
  if (isRuleExpired({ until }, now)) {
    throw new CliError(`--until ${until} is over (today is ${now.toISOString().slice(0, 10)} UTC): expected today or a later day`);
  }
}
