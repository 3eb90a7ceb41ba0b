import { excessiveNestingOffset } from "../input-limits/nesting.js";
import { renderValue } from "../contract/field-issues.js";
import { readBoundedFile, unreadable } from "./desired-file.js";
import type { DesiredStateProblem, SourceLocation } from "./desired-state-error.js";
import { LineIndex } from "./line-index.js";
import { VARIABLE_NAME } from "./variable-references.js";
import { MAX_EXPANDED_VALUES, expansionRefusal, nestingRefusal } from "./yaml-documents.js";
import { composeDocuments, yamlLibrary } from "./yaml-library.js";

/** One variable of a `--var-file`: its name, its value (with YAML's types) and where its name is written. */
export interface FileVariable {
  readonly name: string;
  readonly value: unknown;
  readonly location: SourceLocation;
}

/**
 * Reads a `--var-file`: one YAML mapping of `NAME: value` (an empty file holds none), within the
 * limits of desired-state files: MAX_FILE_BYTES, MAX_NESTING_DEPTH (checked before any parser
 * reads it) and MAX_EXPANDED_VALUES once aliases are expanded. Problems are appended, located in
 * the file; the variables of a refused file are none.
 */
export async function readVariableFile(path: string, name: string, problems: DesiredStateProblem[]): Promise<FileVariable[]> {
  let text: string;
  try {
    text = await readBoundedFile(path, name, "variable files");
  } catch (error) {
    problems.push({ file: name, line: 1, column: 1, path: "", message: unreadable(error, name) });
    return [];
  }
  const lines = new LineIndex(text);
  const tooDeep = excessiveNestingOffset(text);
  if (tooDeep !== undefined) {
    problems.push(nestingRefusal(name, lines, tooDeep));
    return [];
  }
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
  const variables: FileVariable[] = [];
  for (const pair of contents.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    const offset = (pair.key as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
    if (typeof key !== "string" || !VARIABLE_NAME.test(key)) {
      problems.push(at(offset, `variable name ${renderValue(key)} is not valid: expected a letter or _, then letters, digits or _ (e.g. api_id)`));
      continue;
    }
    variables.push({ name: key, value: value[key], location: { file: name, ...lines.position(offset) } });
  }
  return variables;
}
