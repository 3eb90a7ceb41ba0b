import { appendFile, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { describeFileError } from "../../contract/file-errors.js";
import { detectDrift } from "../../reconcile/drift.js";
import { applyIgnoreRules, type IgnoredReport } from "../../reconcile/drift-ignore.js";
import { foldIgnoreFiles } from "../../reconcile/drift-ignore-rules.js";
import { shardBucketOf } from "../../reconcile/drift-shards.js";
import { driftExitCode, mergeDriftReports, type DriftReport, type ShardSpec } from "../../reconcile/drift-report.js";
import { renderDriftAsJUnit, renderDriftAsMarkdown, renderDriftAsText } from "../../reconcile/render-drift.js";
import { renderDriftAsHtml } from "../../reconcile/render-drift-html.js";
import { CliError } from "../cli-error.js";
import { accountFlagProblems } from "../account-flag.js";
import { connect, useColor, type ConnectionFlags, type OutputFlags } from "../connection.js";
import { loadDriftInput } from "../state-input.js";
import type { UnmanagedScope } from "../../reconcile/unmanaged-scope.js";
import { readDriftReportFile } from "../drift-report-file.js";
import { prepareOutputFile } from "../output-file.js";
import { loadIgnoreRules, type LoadedIgnoreRules } from "../ignore-files.js";
import { ProgressLine } from "../progress-line.js";
import type { VariableFlags } from "../variable-flags.js";

export interface DriftOutputFlags extends OutputFlags {
  /** Files to write the report to as well, in the format their extension names (.xml JUnit, .json, .md, .html). */
  readonly report: string[];
}

export interface DriftFlags extends ConnectionFlags, DriftOutputFlags, VariableFlags {
  readonly file: string[];
  readonly fromSynth?: string;
  /** terraform states (files, directories, globs, `-`): their converge resources and their stacks' inventories. */
  readonly state: string[];
  /** What unmanaged means: undeclared children of owned APIs, or every live resource in scope. */
  readonly unmanaged: UnmanagedScope;
  /** Accounts whose contacts and Regions `--unmanaged all` reads besides the caller's and those the sources name. */
  readonly account: string[];
  /** `K/N` (1-based K) or `auto/N` (K from JOB_COMPLETION_INDEX, 0-based). */
  readonly shard?: string;
  readonly parallelism: number;
  /** Ignore files (docs/manual/drift.md, "Ignore rules"), after `.convergeignore.yaml` of the working directory. */
  readonly ignore?: string[] | undefined;
}

export type DriftMergeFlags = DriftOutputFlags;

/** `converge drift`: never writes; exit 0 in sync, 2 drift found, 3 some resource could not be compared, 1 error. */
export async function driftCommand(flags: DriftFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const accountProblems = accountFlagProblems(flags.account);
  if (flags.account.length > 0 && flags.unmanaged !== "all") accountProblems.push("--account goes with --unmanaged all: it adds accounts whose contacts and Regions that scope reads");
  if (accountProblems.length > 0) throw new CliError(accountProblems.join("\n"));
  const shard = flags.shard !== undefined ? parseShard(flags.shard, env) : undefined;
  const reportFiles = flags.report.map(reportFormatOf);
  const ignore = await loadIgnoreRules(flags.ignore ?? []);
  // a shard parses only its own documents (and those whose shard only the list of APIs tells)
  const select = shard && ((key: string) => key.startsWith("api:name:") || shardBucketOf(key, shard.count) === shard.index - 1);
  const input = await loadDriftInput(flags, select ? { select } : {});
  const clients = connect(flags, env);
  const line = new ProgressLine(process.stderr, env);
  try {
    line.phase("reading");
    const fingerprint = foldIgnoreFiles(input.fingerprint, ignore.files);
    const detected = await detectDrift({ ...input, fingerprint }, clients, {
      shard,
      parallelism: flags.parallelism,
      progress: line.progress,
      scope: flags.unmanaged,
      accounts: flags.account,
    });
    line.close();
    const ignored = applyIgnoreRules(detected, ignore.rules, new Date());
    if (ignore.files.length > 0) process.stderr.write(describeIgnoring(ignore, ignored));
    await publish(ignored.report, flags, reportFiles, env);
    return driftExitCode(ignored.report);
  } finally {
    line.close();
    await clients.close();
  }
}

/**
 * What the run's ignore rules did, for stderr: a warning per expired rule, then every file with the
 * number of rules it applied (expired ones are not), and how many findings they ignored.
 */
function describeIgnoring({ files, rules }: LoadedIgnoreRules, { expired, ignored }: IgnoredReport): string {
  const warnings = expired.map((rule) => `converge: warning: ${rule.file}:${rule.line}: ignore rule expired on ${rule.until} `
    + `(reason ${JSON.stringify(rule.reason)}): not applied\n`);
  const counts = files.map(({ file }) => {
    const applied = rules.filter((rule) => rule.file === file && !expired.includes(rule)).length;
    const lapsed = expired.filter((rule) => rule.file === file).length;
    return `${file} (${plural(applied, "rule")}${lapsed > 0 ? `, ${lapsed} expired` : ""})`;
  });
  return `${warnings.join("")}converge: ignore rules: ${counts.join(", ")}; ${plural(ignored, "finding")} ignored\n`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `converge drift merge REPORT.json…`: the shards' reports as one, with the exit code of the merged result. */
export async function driftMergeCommand(files: ReadonlyArray<string>, flags: DriftMergeFlags, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const reportFiles = flags.report.map(reportFormatOf);
  const inputs = await Promise.all(files.map(async (file) => ({ report: await readDriftReportFile(file), file })));
  const merged = mergeDriftReports(inputs);
  await publish(merged, flags, reportFiles, env);
  return driftExitCode(merged);
}


/**
 * `--shard K/N`: shard K of N, K from 1 to N. `--shard auto/N` takes K from JOB_COMPLETION_INDEX
 * (0-based, as a Kubernetes Indexed Job sets it): index 0 is shard 1.
 */
export function parseShard(text: string, env: NodeJS.ProcessEnv = process.env): ShardSpec {
  const match = /^(\d+|auto)\/(\d+)$/.exec(text.trim());
  const count = Number(match?.[2]);
  if (!match || !Number.isInteger(count) || count < 1 || count > 10_000) {
    throw new CliError(`--shard ${JSON.stringify(text)} is not valid: `
      + `expected K/N with 1 ≤ K ≤ N (e.g. 1/4), or auto/N to take K from JOB_COMPLETION_INDEX`);
  }
  if (match[1] === "auto") {
    const raw = env.JOB_COMPLETION_INDEX;
    const index = Number(raw);
    if (raw === undefined || !/^\d+$/.test(raw) || index >= count) {
      throw new CliError(`--shard auto/${count} needs JOB_COMPLETION_INDEX from 0 to ${count - 1} (set by a Kubernetes Indexed Job), `
        + `received ${raw === undefined ? "nothing" : JSON.stringify(raw)}`);
    }
    return { index: index + 1, count };
  }
  const index = Number(match[1]);
  if (index < 1 || index > count) {
    throw new CliError(`--shard ${JSON.stringify(text)} is not valid: shards are numbered from 1 to ${count} `
      + `(K/N is 1-based; auto/N takes the 0-based JOB_COMPLETION_INDEX)`);
  }
  return { index, count };
}

type ReportFormat = "junit" | "json" | "markdown" | "html";

const REPORT_EXTENSIONS: Readonly<Record<string, ReportFormat>> = { ".xml": "junit", ".json": "json", ".md": "markdown", ".html": "html", ".htm": "html" };

/**
 * A --report file's format from its extension, and its folder made (as terraform's `-out` and
 * kubectl's output files need no mkdir first): refused before any read when it cannot be, so that no
 * finding is lost to a path.
 */
function reportFormatOf(file: string): { file: string; format: ReportFormat } {
  const format = REPORT_EXTENSIONS[extname(file).toLowerCase()];
  if (!format) {
    throw new CliError(`--report ${JSON.stringify(file)}: expected a file ending in .xml (JUnit), .json (the JSON report), `
      + `.md (markdown) or .html (a page for people)`);
  }
  prepareOutputFile("--report", file);
  return { file, format };
}

function render(report: DriftReport, format: ReportFormat | OutputFlags["output"], flags: OutputFlags): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`;
    case "markdown":
      return renderDriftAsMarkdown(report);
    case "junit":
      return renderDriftAsJUnit(report);
    case "html":
      return renderDriftAsHtml(report);
    default:
      return renderDriftAsText(report, { color: useColor(flags) });
  }
}

/** Writes the report files, prints the report, and appends markdown to $GITHUB_STEP_SUMMARY when set. */
async function publish(
  report: DriftReport,
  flags: DriftOutputFlags,
  files: ReadonlyArray<{ file: string; format: ReportFormat }>,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  process.stdout.write(render(report, flags.output, flags));
  for (const { file, format } of files) {
    try {
      await writeFile(file, render(report, format, flags));
    } catch (error) {
      // the report was printed: its findings and the exit code stand, the file is what is missing
      process.stderr.write(`converge: warning: --report ${file}: cannot write the report: ${describeFileError(error)}\n`);
    }
  }
  const summary = env.GITHUB_STEP_SUMMARY;
  if (summary) {
    try {
      await appendFile(summary, renderDriftAsMarkdown(report));
    } catch (error) {
      // the summary is a courtesy of the CI: the report itself was printed, so this does not fail the run
      process.stderr.write(`converge: warning: cannot append to GITHUB_STEP_SUMMARY ${summary}: `
        + `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    }
  }
}
