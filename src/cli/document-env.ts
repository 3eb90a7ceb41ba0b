import { DesiredStateError } from "../desired/desired-state-error.js";
import { crossCheckDocuments } from "../desired/cross-check.js";
import { parseDesiredText, type LoadedDocument } from "../desired/load.js";
import { canonicalJson } from "../desired/canonical-json.js";
import { modelOf } from "../desired/kinds/registry.js";
import { KINDS, type Kind } from "../desired/schema.js";
import { NestingError, parseJsonWithinDepth } from "../input-limits/nesting.js";
import { CliError } from "./cli-error.js";

/**
 * Desired state handed over in an environment variable (`--document-env VAR`): how the cdktf
 * constructs' provisioners pass a document to the CLI without putting it into a command line.
 * Messages name the variable, never its value.
 */

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The JSON value of `variable`: one document or an array of documents, as plain values. */
export function readDocumentVariable(variable: string, flag: string, env: NodeJS.ProcessEnv = process.env): unknown[] {
  if (!VARIABLE_NAME.test(variable)) {
    throw new CliError(`${flag} ${JSON.stringify(variable)} is not valid: expected the name of an environment variable, e.g. CONVERGE_DOCUMENT`);
  }
  const text = env[variable];
  if (text === undefined || text.trim() === "") throw new CliError(`${flag} ${variable}: the environment variable ${variable} is not set or empty`);
  let value: unknown;
  try {
    value = parseJsonWithinDepth(text);
  } catch (error) {
    if (error instanceof NestingError) throw new CliError(`${flag} ${variable}: $${variable}:${error.line}:${error.column}: ${error.problem}`);
    // JSON.parse's message quotes the text: say only where it breaks
    throw new CliError(`${flag} ${variable}: the environment variable ${variable} does not hold JSON `
      + `(expected one desired-state document or an array of them)`);
  }
  return Array.isArray(value) ? value : [value];
}

/**
 * Validates documents read from `variable` exactly as the files of `-f` are validated (schema, then
 * the documents against each other); problems are reported at `$VARIABLE[index]`.
 */
export function loadDocumentValues(values: ReadonlyArray<unknown>, variable: string): LoadedDocument[] {
  // Re-serialized as ASCII JSON: the loader reads JSON with a YAML parser, which gives characters
  // such as U+2028 or C1 controls YAML meanings; escaped, every string arrives as it was sent.
  const text = JSON.stringify(values).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const { documents, problems } = parseDesiredText(text, `$${variable}`);
  problems.push(...crossCheckDocuments(documents));
  if (problems.length > 0) throw new DesiredStateError(problems);
  return documents;
}

/** The documents of `--document-env VAR`, validated. */
export function documentsFromEnvironment(variable: string, env: NodeJS.ProcessEnv = process.env): LoadedDocument[] {
  return loadDocumentValues(readDocumentVariable(variable, "--document-env", env), variable);
}

/**
 * The documents of `--document-env VAR` to delete: each planned as `ensure: absent` (a document
 * that names only the resource's identity is enough), less those also listed in `--keep-env KEEP`
 * (compared as JSON values, field order aside). RegionOptIn has no delete.
 */
export function documentsToDelete(variable: string, keepVariable: string | undefined, env: NodeJS.ProcessEnv = process.env): LoadedDocument[] {
  const keep = keepVariable === undefined
    ? new Set<string>()
    : new Set(readDocumentVariable(keepVariable, "--keep-env", env).map((value) => canonicalJson(value)));
  const values = readDocumentVariable(variable, "--document-env", env).filter((value) => !keep.has(canonicalJson(value)));
  const absent = values.map((value, index) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new CliError(`--document-env ${variable}: item ${index} is not a document (expected a mapping with kind and spec)`);
    }
    const kind = (value as { kind?: unknown }).kind;
    const model = typeof kind === "string" && (KINDS as ReadonlyArray<string>).includes(kind) ? modelOf(kind as Kind) : undefined;
    if (model?.undeletable !== undefined) {
      throw new CliError(`--document-env ${variable}: item ${index} is a ${model.kind} document, which converge cannot delete (${model.undeletable})`);
    }
    return { ...(value as Record<string, unknown>), ensure: "absent" };
  });
  return absent.length === 0 ? [] : loadDocumentValues(absent, variable);
}
