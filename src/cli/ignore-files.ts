import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { LineIndex } from "../desired/line-index.js";
import { excessiveNestingOffset, nestingProblem } from "../input-limits/nesting.js";
import {
  IgnoreRulesError,
  MAX_IGNORE_FILE_BYTES,
  parseIgnoreFile,
  type IgnoreFile,
  type IgnoreRule,
  type IgnoreRuleProblem,
} from "../reconcile/drift-ignore-rules.js";
import { describeFileError } from "../contract/file-errors.js";

/** The ignore file `converge drift` reads from its working directory when it is there, before every --ignore file. */
export const CONVERGE_IGNORE_FILE = ".convergeignore.yaml";

/** The ignore files a run uses (their names as the run names them, and their texts) and their rules, in order. */
export interface LoadedIgnoreRules {
  readonly files: ReadonlyArray<IgnoreFile>;
  readonly rules: ReadonlyArray<IgnoreRule>;
}

/**
 * Reads `.convergeignore.yaml` of `cwd` when present, then every `--ignore` file in the order
 * given (a file named twice is read once, at its first place), and parses their rules. Every
 * problem of every file (unreadable, larger than MAX_IGNORE_FILE_BYTES, not UTF-8, nested too
 * deeply, or a rule that is not valid) is thrown at once, as an IgnoreRulesError.
 */
export async function loadIgnoreRules(given: ReadonlyArray<string>, cwd: string = process.cwd()): Promise<LoadedIgnoreRules> {
  const names: string[] = [];
  const seen = new Set<string>();
  const add = (name: string) => {
    const path = resolve(cwd, name);
    if (seen.has(path)) return;
    seen.add(path);
    names.push(name);
  };
  if (await readableOrPresent(resolve(cwd, CONVERGE_IGNORE_FILE))) add(CONVERGE_IGNORE_FILE);
  given.forEach(add);

  const files: IgnoreFile[] = [];
  const rules: IgnoreRule[] = [];
  const problems: IgnoreRuleProblem[] = [];
  for (const name of names) {
    const read = await readIgnoreFile(name, resolve(cwd, name));
    if ("problem" in read) {
      problems.push(read.problem);
      continue;
    }
    const parsed = parseIgnoreFile(read.file);
    files.push(read.file);
    rules.push(...parsed.rules);
    problems.push(...parsed.problems);
  }
  if (problems.length > 0) throw new IgnoreRulesError(problems);
  return { files, rules };
}

/** Whether the working directory's ignore file is there (anything but "no such file": an unreadable one is then refused). */
async function readableOrPresent(path: string): Promise<boolean> {
  try {
    await (await open(path, "r")).close();
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** One file's text, or why it cannot be used as it is: read at most one byte past the bound, so a huge file is never read whole. */
async function readIgnoreFile(file: string, path: string): Promise<{ file: IgnoreFile } | { problem: IgnoreRuleProblem }> {
  let bytes: Buffer;
  try {
    const handle = await open(path, "r");
    try {
      const buffer = Buffer.alloc(MAX_IGNORE_FILE_BYTES + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      bytes = buffer.subarray(0, length);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { problem: { file, message: `cannot read the ignore file: ${describeFileError(error)}` } };
  }
  if (bytes.length > MAX_IGNORE_FILE_BYTES) {
    return { problem: { file, message: `is larger than ${MAX_IGNORE_FILE_BYTES} bytes: expected an ignore file of at most 1 MiB (split the rules over several --ignore files)` } };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { problem: { file, message: "is not UTF-8 text: expected a YAML file in UTF-8" } };
  }
  const tooDeep = excessiveNestingOffset(text);
  if (tooDeep !== undefined) return { problem: { file, line: new LineIndex(text).position(tooDeep).line, message: nestingProblem() } };
  return { file: { file, text } };
}
