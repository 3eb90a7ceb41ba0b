import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { accountFlagProblems } from "../account-flag.js";
import { API_ID_PATTERN } from "../../contract/gateway.js";
import { documentJsonSchema } from "../../desired/schema.js";
import { exportLiveState, exportNeeds, type ExportScope, type ExportedFile } from "../../reconcile/export.js";
import { exportUnmanaged, selectUnmanaged } from "../../reconcile/export-from-drift.js";
import type { LiveState } from "../../reconcile/model.js";
import { readLive } from "../../reconcile/live-reader.js";
import { renderExportStream, renderExportedFile } from "../../reconcile/render-export.js";
import { renderExportAsTerraform, valuesNotInNfc } from "../../reconcile/render-export-terraform.js";
import { CliError } from "../cli-error.js";
import { connect, type ConnectionFlags } from "../connection.js";
import { readDriftReportFile } from "../drift-report-file.js";

export interface ExportFlags extends ConnectionFlags {
  /** API IDs (repeatable); with `fromDrift`, only the report's findings in them. */
  readonly api: string[];
  /** Account IDs, or `self` for the caller's own account (repeatable); with `fromDrift`, only the report's findings in them. */
  readonly account: string[];
  /** A JSON drift report: export exactly its unmanaged resources (docs/manual/export.md, "Codifying what drift found"). */
  readonly fromDrift?: string;
  /** With `fromDrift`, export unmanaged findings an ignore rule accepts too. @default false */
  readonly includeIgnored?: boolean;
  /** Directory to write one file per API and account into; without it, one YAML stream on stdout. */
  readonly out?: string;
  /** `yaml` (desired-state documents) or `terraform` (.tf files with import blocks; needs `out`). @default "yaml" */
  readonly format?: string;
  readonly parallelism: number;
}

const SCHEMA_FILE = "converge.schema.json";

/**
 * `converge export`: reads the live state of the APIs and accounts named and writes it as
 * desired-state documents that plan to no changes against that live state. With `-o DIR`, one file
 * per API and per account plus the JSON Schema the files' modeline points at; else one YAML stream
 * on stdout. With `--from-drift REPORT.json`, exactly the report's unmanaged resources instead
 * (exportFromDrift). Exit 0, or 1 when something could not be read.
 */
export async function exportCommand(flags: ExportFlags): Promise<number> {
  const format = exportFormatOf(flags);
  if (flags.fromDrift !== undefined) return exportFromDrift(flags.fromDrift, flags, format);
  if (flags.includeIgnored) throw new CliError("--include-ignored selects findings of a drift report: pass it with --from-drift REPORT.json");
  const scope = exportScopeOf(flags);
  const clients = connect(flags);
  try {
    const live = await readLive(exportNeeds(scope), clients, { parallelism: flags.parallelism });
    const { files, problems } = exportLiveState(live, scope);
    if (problems.length > 0) throw new CliError(`nothing was exported: ${problems.join("; ")}`);
    await writeExport(files, live, format, flags.out, (dir) => `converge plan -f ${dir} (exit 0: no changes)`);
    return 0;
  } finally {
    await clients.close();
  }
}

/**
 * `converge export --from-drift REPORT.json`: the report's unmanaged resources, and nothing else of
 * their APIs and accounts (src/reconcile/export-from-drift.ts), read from live state now. What is
 * left out (findings ignore rules accept, findings no longer live) is said on stderr. A report with
 * nothing to export writes nothing and exits 0; a report that does not parse exits 1.
 */
async function exportFromDrift(file: string, flags: ExportFlags, format: "yaml" | "terraform"): Promise<number> {
  const within = flags.api.length + flags.account.length > 0 ? exportScopeOf(flags) : undefined;
  const selection = selectUnmanaged(await readDriftReportFile(file), file, { includeIgnored: flags.includeIgnored ?? false, within });
  const notes = [
    ...(selection.ignored.length > 0
      ? [`skipped ${countOf(selection.ignored.length, "unmanaged resource")} an ignore rule accepts (--include-ignored exports them too)`]
      : []),
    ...(selection.outside.length > 0 ? [`skipped ${countOf(selection.outside.length, "unmanaged resource")} outside the APIs and accounts named`] : []),
    ...selection.unmatched.map((name) => `${name}: ${file} lists no unmanaged resource there`),
  ];
  if (notes.length > 0) process.stderr.write(`${notes.map((note) => `note: ${note}`).join("\n")}\n`);
  if (selection.findings.length === 0) {
    process.stderr.write(`nothing to export: ${file} lists no unmanaged resource${selection.ignored.length + selection.outside.length > 0 ? " left to export" : ""}\n`);
    return 0;
  }
  const clients = connect(flags);
  try {
    const live = await readLive(exportNeeds(selection.scope), clients, { parallelism: flags.parallelism });
    const { files, gone, problems } = exportUnmanaged(live, selection);
    if (problems.length > 0) throw new CliError(`nothing was exported: ${problems.join("; ")}`);
    if (gone.length > 0) {
      process.stderr.write(`warning: ${countOf(gone.length, "unmanaged resource")} of ${file} no longer live, skipped (nothing to import):\n`
        + `${gone.map((address) => `  ${address}`).join("\n")}\n`);
    }
    if (files.length === 0) {
      process.stderr.write(`nothing to export: no unmanaged resource of ${file} is live any more\n`);
      return 0;
    }
    await writeExport(files, live, format, flags.out, (dir) => `converge drift -f SOURCES -f ${dir} (none of these unmanaged any more)`);
    return 0;
  } finally {
    await clients.close();
  }
}

/** Writes exported files: `.tf` files into `out`, YAML files into `out` with the schema, or one YAML stream on stdout; then what to check. */
async function writeExport(
  files: ReadonlyArray<ExportedFile>,
  live: LiveState,
  format: "yaml" | "terraform",
  out: string | undefined,
  yamlCheck: (dir: string) => string,
): Promise<void> {
  if (format === "terraform") {
    await mkdir(out!, { recursive: true });
    const written = renderExportAsTerraform(files, live);
    for (const file of written) await writeFile(join(out!, file.name), file.text);
    const described = new Map(files.map((file) => [file.name.replace(/\.yaml$/, ".tf"), describeFile(file)]));
    process.stdout.write(`${written.map((file) => `wrote ${join(out!, file.name)}${described.has(file.name) ? `: ${described.get(file.name)!}` : ""}`).join("\n")}\n`);
    const notNfc = valuesNotInNfc(files);
    if (notNfc.length > 0) {
      process.stderr.write(`warning: terraform reads every string as its Unicode NFC form, and these live values are not in NFC: a plan of them shows an update to that form\n${notNfc.map((line) => `  ${line}`).join("\n")}\n`);
    }
    process.stdout.write(`check: cd ${out!} && terraform init && terraform plan (only imports: 0 to add, 0 to change, 0 to destroy)\n`);
    return;
  }
  if (out === undefined) {
    process.stdout.write(renderExportStream(files));
    return;
  }
  await mkdir(out, { recursive: true });
  await writeFile(join(out, SCHEMA_FILE), `${JSON.stringify(documentJsonSchema(), null, 2)}\n`);
  for (const file of files) await writeFile(join(out, file.name), renderExportedFile(file));
  process.stdout.write(`${files.map((file) => `wrote ${join(out, file.name)}: ${describeFile(file)}`).join("\n")}\n`);
  process.stdout.write(`check: ${yamlCheck(out)}\n`);
}

/** The format the flags name: `yaml`, or `terraform` with a directory to write into. */
export function exportFormatOf(flags: Pick<ExportFlags, "format" | "out">): "yaml" | "terraform" {
  const format = flags.format ?? "yaml";
  if (format !== "yaml" && format !== "terraform") throw new CliError(`--format ${JSON.stringify(format)} is not valid: expected yaml or terraform`);
  if (format === "terraform" && flags.out === undefined) throw new CliError("--format terraform writes several .tf files: pass -o DIR (a directory to write them into)");
  return format;
}

/** The scope the flags name, deduplicated; every malformed ID reported at once. */
export function exportScopeOf(flags: Pick<ExportFlags, "api" | "account">): ExportScope {
  const apis = [...new Set(flags.api)];
  const accounts = [...new Set(flags.account)];
  const problems = [
    ...apis
      .filter((id) => !API_ID_PATTERN.test(id))
      .map((id) => `--api ${JSON.stringify(id)} is not valid: expected an apiId (10 lower-case letters or digits, e.g. a1b2c3d4e5)`),
    ...accountFlagProblems(accounts),
  ];
  if (apis.length === 0 && accounts.length === 0) problems.push("nothing to export: pass --api ID and/or --account ID|self (each repeatable), or --from-drift REPORT.json");
  if (problems.length > 0) throw new CliError(problems.join("\n"));
  return { apis, accounts };
}

function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function describeFile(file: ExportedFile): string {
  const counts = new Map<string, number>();
  for (const document of file.documents) counts.set(document.kind, (counts.get(document.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}`);
  if (file.commented.documents.length > 0) parts.push(`${file.commented.documents.length} managed by the service, as comments`);
  return parts.join(", ") || "no documents";
}
