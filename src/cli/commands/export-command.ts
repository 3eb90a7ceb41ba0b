import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ACCOUNT_ID_PATTERN } from "../../contract/account.js";
import { documentJsonSchema } from "../../desired/schema.js";
import { exportLiveState, exportNeeds, type ExportScope, type ExportedFile } from "../../reconcile/export.js";
import { SELF } from "../../desired/read-key.js";
import { readLive } from "../../reconcile/live-reader.js";
import { renderExportStream, renderExportedFile } from "../../reconcile/render-export.js";
import { renderExportAsTerraform, valuesNotInNfc } from "../../reconcile/render-export-terraform.js";
import { CliError } from "../cli-error.js";
import { connect, type ConnectionFlags } from "../connection.js";

export interface ExportFlags extends ConnectionFlags {
  /** API IDs (repeatable). */
  readonly api: string[];
  /** Account IDs, or `self` for the caller's own account (repeatable). */
  readonly account: string[];
  /** Directory to write one file per API and account into; without it, one YAML stream on stdout. */
  readonly out?: string;
  /** `yaml` (desired-state documents) or `terraform` (.tf files with import blocks; needs `out`). @default "yaml" */
  readonly format?: string;
  readonly parallelism: number;
}

const API_ID_PATTERN = /^[a-z0-9]{10}$/;
const SCHEMA_FILE = "converge.schema.json";

/**
 * `converge export`: reads the live state of the APIs and accounts named and writes it as
 * desired-state documents that plan to no changes against that live state. With `-o DIR`, one file
 * per API and per account plus the JSON Schema the files' modeline points at; else one YAML stream
 * on stdout. Exit 0, or 1 when something could not be read.
 */
export async function exportCommand(flags: ExportFlags): Promise<number> {
  const scope = exportScopeOf(flags);
  const format = exportFormatOf(flags);
  const clients = connect(flags);
  try {
    const live = await readLive(exportNeeds(scope), clients, { parallelism: flags.parallelism });
    const { files, problems } = exportLiveState(live, scope);
    if (problems.length > 0) throw new CliError(`nothing was exported: ${problems.join("; ")}`);
    if (format === "terraform") {
      const out = flags.out!;
      await mkdir(out, { recursive: true });
      const written = renderExportAsTerraform(files, live);
      for (const file of written) await writeFile(join(out, file.name), file.text);
      const described = new Map(files.map((file) => [file.name.replace(/\.yaml$/, ".tf"), describeFile(file)]));
      process.stdout.write(`${written.map((file) => `wrote ${join(out, file.name)}${described.has(file.name) ? `: ${described.get(file.name)!}` : ""}`).join("\n")}\n`);
      const notNfc = valuesNotInNfc(files);
      if (notNfc.length > 0) {
        process.stderr.write(`warning: terraform reads every string as its Unicode NFC form, and these live values are not in NFC: a plan of them shows an update to that form\n${notNfc.map((line) => `  ${line}`).join("\n")}\n`);
      }
      process.stdout.write(`check: cd ${out} && terraform init && terraform plan (only imports: 0 to add, 0 to change, 0 to destroy)\n`);
      return 0;
    }
    if (flags.out === undefined) {
      process.stdout.write(renderExportStream(files));
      return 0;
    }
    await mkdir(flags.out, { recursive: true });
    await writeFile(join(flags.out, SCHEMA_FILE), `${JSON.stringify(documentJsonSchema(), null, 2)}\n`);
    for (const file of files) await writeFile(join(flags.out, file.name), renderExportedFile(file));
    process.stdout.write(`${files.map((file) => `wrote ${join(flags.out!, file.name)}: ${describeFile(file)}`).join("\n")}\n`);
    process.stdout.write(`check: converge plan -f ${flags.out} (exit 0: no changes)\n`);
    return 0;
  } finally {
    await clients.close();
  }
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
    ...accounts
      .filter((id) => id !== SELF && !ACCOUNT_ID_PATTERN.test(id))
      .map((id) => `--account ${JSON.stringify(id)} is not valid: expected 12 digits, or self for the caller's own account`),
  ];
  if (apis.length === 0 && accounts.length === 0) problems.push("nothing to export: pass --api ID and/or --account ID|self (each repeatable)");
  if (problems.length > 0) throw new CliError(problems.join("\n"));
  return { apis, accounts };
}

function describeFile(file: ExportedFile): string {
  const counts = new Map<string, number>();
  for (const document of file.documents) counts.set(document.kind, (counts.get(document.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}`);
  if (file.commented.documents.length > 0) parts.push(`${file.commented.documents.length} managed by the service, as comments`);
  return parts.join(", ") || "no documents";
}
