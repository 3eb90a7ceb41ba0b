import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { stringify } from "yaml";
import { writeScaledEstate } from "./estate.js";

/**
 * The loading benchmark's estate written with variables (docs/manual/desired-state.md,
 * "Environments and variables"): the same documents once substituted, with every account, API,
 * timeout, scope list, backend domain, function region and mail domain a reference (2 to 5 per
 * document, 30,000 in all at scale 1) and their values in one variable file. `writeVariableEstate`
 * writes the plain estate into `plain/`, this one into `documents/` and the values into
 * `values.yaml` (outside `documents/`, which `-f` reads).
 */

/** What each plain value becomes: a pattern, its reference, and the variable it adds. */
const REWRITES: ReadonlyArray<{ readonly pattern: RegExp; readonly rewrite: (match: RegExpExecArray, values: Record<string, unknown>) => string }> = [
  { pattern: /account: "(\d{12})"/g, rewrite: ([, id], values) => ((values[`account_${id}`] = id), `account: \${var.account_${id}}`) },
  { pattern: /api: (estate\d{4})/g, rewrite: ([, id], values) => ((values[`api_${id}`] = id), `api: \${var.api_${id}}`) },
  { pattern: /timeoutInMillis: (\d+)/g, rewrite: ([, ms], values) => ((values[`timeout_${ms}`] = Number(ms)), `timeoutInMillis: \${var.timeout_${ms}}`) },
  { pattern: /authorizationScopes: \[read-(\d+)\]/g, rewrite: ([, n], values) => ((values[`scopes_${n}`] = [`read-${n}`]), `authorizationScopes: \${var.scopes_${n}}`) },
  { pattern: /\.internal\.example\/api/g, rewrite: (_, values) => ((values.backend_domain = "internal.example"), ".${var.backend_domain}/api") },
  { pattern: /arn:cloud:function:us-east-1:/g, rewrite: (_, values) => ((values.region = "us-east-1"), "arn:cloud:function:${var.region}:") },
  { pattern: /@example\.com/g, rewrite: (_, values) => ((values.mail_domain = "example.com"), "@${var.mail_domain}") },
  { pattern: /payloadFormatVersion: "1\.0"/g, rewrite: (_, values) => ((values.payload_format = "1.0"), "payloadFormatVersion: ${var.payload_format}") },
];

/** Writes both estates under `directory`; returns the document count and how many references the variable one holds. */
export async function writeVariableEstate(directory: string): Promise<{ documents: number; references: number; variables: number }> {
  const plain = join(directory, "plain");
  const documents = await writeScaledEstate(plain, 1);
  const values: Record<string, unknown> = {};
  let references = 0;
  for (const file of await yamlFiles(plain)) {
    let text = await readFile(file, "utf8");
    for (const { pattern, rewrite } of REWRITES) {
      text = text.replace(pattern, (...args: unknown[]) => {
        references += 1;
        const match = Object.assign([...(args.slice(0, -2) as string[])], { index: 0, input: "" }) as unknown as RegExpExecArray;
        return rewrite(match, values);
      });
    }
    const target = join(directory, "documents", relative(plain, file));
    await mkdir(join(target, ".."), { recursive: true });
    await writeFile(target, text);
  }
  await writeFile(join(directory, "values.yaml"), stringify(values));
  return { documents, references, variables: Object.keys(values).length };
}

async function yamlFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".yaml")).map((entry) => join(entry.parentPath, entry.name)).sort();
}
