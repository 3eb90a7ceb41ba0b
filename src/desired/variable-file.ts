import { createRequire } from "node:module";
import type * as JsYaml from "js-yaml";
import type * as YamlLibrary from "yaml";
import { excessiveNestingOffset } from "../input-limits/nesting.js";
import { isPlainObject, renderValue } from "../contract/field-issues.js";
import { readBoundedFile, unreadable } from "./desired-file.js";
import type { DesiredStateProblem, SourceLocation } from "./desired-state-error.js";
import { LineIndex } from "./line-index.js";
import { VARIABLE_NAME } from "./variable-references.js";
import { MAX_EXPANDED_VALUES, expansionRefusal, nestingRefusal } from "./yaml-documents.js";
import { composeDocuments, offsetOfPath, yamlLibrary } from "./yaml-library.js";

/** The variables of a `--var-file`: each name with its value (YAML's types), and where a name is written. */
export interface VariableFile {
  readonly variables: ReadonlyArray<{ readonly name: string; readonly value: unknown }>;
  /** Where `name` is written in the file (composed with positions on first use: only a warning needs it). */
  locate(name: string): SourceLocation;
}

const NONE: VariableFile = { variables: [], locate: () => ({ file: "", line: 1, column: 1 }) };
let jsYaml: typeof JsYaml | undefined;

/**
 * Reads a `--var-file`: one YAML mapping of `NAME: value` (an empty file holds none), within the
 * limits of desired-state files: MAX_FILE_BYTES, MAX_NESTING_DEPTH (checked before any parser
 * reads it) and MAX_EXPANDED_VALUES once aliases are expanded. Read by js-yaml, as documents are;
 * a file it refuses, or that is not such a mapping, is read again by the yaml library to locate
 * every problem (appended to `problems`; the variables of a refused file are none).
 */
export async function readVariableFile(path: string, name: string, problems: DesiredStateProblem[]): Promise<VariableFile> {
  let text: string;
  try {
    text = await readBoundedFile(path, name, "variable files");
  } catch (error) {
    problems.push({ file: name, line: 1, column: 1, path: "", message: unreadable(error, name) });
    return NONE;
  }
  const lines = new LineIndex(text);
  const tooDeep = excessiveNestingOffset(text);
  if (tooDeep !== undefined) {
    problems.push(nestingRefusal(name, lines, tooDeep));
    return NONE;
  }
  const quick = quickRead(text);
  const variables = quick ?? composedRead(text, name, lines, problems);
  let composed: YamlLibrary.Document.Parsed | undefined;
  return {
    variables,
    locate(variable) {
      composed ??= composeDocuments(text)[0];
      const offset = composed ? offsetOfPath(composed, [variable]) : 0;
      return { file: name, ...lines.position(offset) };
    },
  };
}

/** The variables of a text js-yaml reads as a mapping of valid names within the alias bound; undefined for anything else. */
function quickRead(text: string): Array<{ name: string; value: unknown }> | undefined {
  jsYaml ??= createRequire(import.meta.url)("js-yaml") as typeof JsYaml;
  let value: unknown;
  try {
    value = jsYaml.load(text);
  } catch {
    // what js-yaml refuses is read again by the yaml library, whose messages converge reports
    return undefined;
  }
  if (value === undefined || value === null) return [];
  if (!isPlainObject(value) || expansionRefusal(value) !== undefined) return undefined;
  const entries = Object.entries(value);
  return entries.every(([key]) => VARIABLE_NAME.test(key)) ? entries.map(([key, item]) => ({ name: key, value: item })) : undefined;
}

/** Reads a variable file with the yaml library, every problem located; the variables of the valid names when the file is a mapping. */
function composedRead(text: string, name: string, lines: LineIndex, problems: DesiredStateProblem[]): Array<{ name: string; value: unknown }> {
  const at = (offset: number, message: string): DesiredStateProblem => ({ file: name, ...lines.position(offset), path: "", message });
  const documents = composeDocuments(text);
  const errors = documents.flatMap((document) => document.errors);
  if (errors.length > 0) {
    for (const error of errors) problems.push(at(error.pos[0], `not valid YAML: ${error.message.split("\n")[0]}`));
    return [];
  }
  const { isMap, isScalar } = yamlLibrary();
  const filled = documents.filter((document) => document.contents !== null && !(isScalar(document.contents) && document.contents.value === null));
  if (filled.length === 0) return [];
  const contents = filled[0]!.contents!;
  if (filled.length > 1 || !isMap(contents)) {
    const where = filled.length > 1 ? filled[1]!.contents!.range?.[0] ?? 0 : contents.range?.[0] ?? 0;
    const received = filled.length > 1 ? `${filled.length} documents` : renderValue(filled[0]!.toJS({ maxAliasCount: MAX_EXPANDED_VALUES }));
    problems.push(at(where, `a variable file holds one YAML mapping of NAME: value, received ${received}`));
    return [];
  }
  let value: Record<string, unknown>;
  try {
    value = filled[0]!.toJS({ maxAliasCount: MAX_EXPANDED_VALUES }) as Record<string, unknown>;
  } catch (error) {
    problems.push(at(contents.range?.[0] ?? 0, `the variable file cannot be read: ${(error as Error).message}`));
    return [];
  }
  const refusal = expansionRefusal(value);
  if (refusal) {
    problems.push(at(contents.range?.[0] ?? 0, refusal));
    return [];
  }
  const variables: Array<{ name: string; value: unknown }> = [];
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    const offset = (pair.key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
    if (typeof key !== "string" || !VARIABLE_NAME.test(key)) {
      problems.push(at(offset, `variable name ${renderValue(key)} is not valid: expected a letter or _, then letters, digits or _ (e.g. api_id)`));
      continue;
    }
    variables.push({ name: key, value: value[key] });
  }
  return variables;
}
