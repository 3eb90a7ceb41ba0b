import { createHash } from "node:crypto";
import { readdirSync, statSync, type Dirent, type Stats } from "node:fs";
import { extname, join, relative } from "node:path";
import { crossCheckDocuments } from "./cross-check.js";
import { readBoundedFile, unreadable } from "./desired-file.js";
import { DesiredStateError, DesiredStateHeadline, type DesiredStateProblem } from "./desired-state-error.js";
import { parseJsonText } from "./json-documents.js";
import { LineIndex } from "./line-index.js";
import { loadCacheKey, type LoadCache } from "./load-cache.js";
import type { LoadedDocument } from "./loaded-document.js";
import { RawDocument, type TextRegion } from "./raw-document.js";
import type { Document } from "./schema.js";
import { parseYamlText, splitYamlDocuments, type ParsedDocuments } from "./yaml-documents.js";
import { modelOf } from "./kinds/registry.js";
import { readKeyOfValue, scanReadKey } from "./read-key-scan.js";
import { readKeyText } from "./read-key.js";
import { SubstitutionBudget } from "./substitute-variables.js";
import { validateDocument } from "./validate-document.js";
import { validateWithVariables } from "./variable-document.js";
import { recordVariables, unusedVariableWarnings, type VariablesRecord } from "./variable-record.js";
import { scanReferences } from "./variable-references.js";
import { resolveVariables, type VariableInputs, type Variables } from "./variable-set.js";
import { describeFileError } from "../contract/file-errors.js";

export type { LoadedDocument } from "./loaded-document.js";
export { MAX_FILE_BYTES } from "./desired-file.js";
export { validateDocument } from "./validate-document.js";

export interface DesiredState {
  readonly documents: ReadonlyArray<LoadedDocument>;
  /** How many files were read. */
  readonly files: number;
  /** Documents a selection (LoadOptions.select) left unparsed. */
  readonly skipped: number;
  /**
   * sha256 of the text of every file read, in order, and of the values of the variables the
   * documents use (when they use some): equal desired state, equal fingerprints.
   */
  readonly fingerprint: string;
  /** Entries of the directories walked that were skipped, each naming the entry and why; variables no document uses. */
  readonly warnings: ReadonlyArray<string>;
  /** The variables the documents were read with (LoadOptions.variables), when a variable file was given or a variable used. */
  readonly variables?: VariablesRecord | undefined;
}

export interface LoadOptions {
  /** Files are named relative to this directory in every message. @default process.cwd() */
  readonly cwd?: string;
  /**
   * Keeps only the documents whose read key (src/desired/read-key.ts, as text) this accepts: a drift
   * shard's. A document whose key can be found without parsing it (read-key-scan.ts) is not parsed
   * unless it is kept; the others are parsed and validated, then kept or left out by their key.
   * Cross-document checks see the kept documents only (documents that refer to each other have one
   * read key). @default every document
   */
  readonly select?: (readKey: string) => boolean;
  /** Told each warning as it is found (they are also in DesiredState.warnings, when the load succeeds). */
  readonly onWarning?: (warning: string) => void;
  /**
   * Substitutes `${var.…}` in the documents' values with these variables (docs/manual/desired-state.md,
   * "Environments and variables"): an unset variable without a default is then a problem, and
   * `$${var.` the text `${var.`. @default documents are read as written (a cdktf synth's output, documents from the environment)
   */
  readonly variables?: VariableInputs | undefined;
  /** Paths (as given) read as written even with `variables`: a cdktf synth's output is never interpolated. */
  readonly verbatimPaths?: ReadonlyArray<string> | undefined;
  /** What the path `-` reads. @default process.stdin */
  readonly stdin?: NodeJS.ReadableStream | undefined;
  /** Reuses what an earlier load with the same options parsed of files whose text (and variables) did not change (load-cache.ts). */
  readonly cache?: LoadCache | undefined;
}

/** The path that reads standard input, once; its documents are located as `<stdin>:line:column`. */
export const STDIN_PATH = "-";
const STDIN_NAME = "<stdin>";

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/** The problems of files that could not be read at all: when they are all there is, the error says so. */
const UNREADABLE = new WeakSet<DesiredStateProblem>();

function unreadableProblem(problem: DesiredStateProblem): DesiredStateProblem {
  UNREADABLE.add(problem);
  return problem;
}

/**
 * Loads desired state from files and directories (recursively, in sorted order; hidden entries,
 * `*.schema.json` files and entries that are not regular files are skipped) and standard input
 * (`-`, a YAML stream or JSON). Substitutes variables when asked. Validates every document and the
 * documents against each other; throws one DesiredStateError listing every problem, with file,
 * line, column and field path.
 */
export async function loadDesiredState(paths: ReadonlyArray<string>, options: LoadOptions = {}): Promise<DesiredState> {
  const cwd = options.cwd ?? process.cwd();
  const problems: DesiredStateProblem[] = [];
  const warnings: string[] = [];
  const files: string[] = [];
  const verbatim = new Set<string>();
  const display = (file: string) => (file === STDIN_PATH ? STDIN_NAME : relative(cwd, file) || file);
  for (const path of paths) {
    const before = files.length;
    if (path !== STDIN_PATH) collectFiles(path, { files, warnings, problems, display }, true);
    else if (files.includes(STDIN_PATH)) problems.push({ file: STDIN_NAME, line: 1, column: 1, path: "", message: "standard input is read once: pass -f - once" });
    else files.push(STDIN_PATH);
    if (options.verbatimPaths?.includes(path)) for (const file of files.slice(before)) verbatim.add(file);
  }
  for (const warning of warnings) options.onWarning?.(warning);
  const variables = options.variables ? await resolveVariables(options.variables, cwd, problems) : undefined;
  const reading: Reading = { documents: [], problems, texts: [], skipped: 0, used: new Set() };
  options.cache?.begin();
  for (const file of files) await loadFile(file, display(file), verbatim.has(file) ? undefined : variables, options, reading);
  options.cache?.end();
  if (files.length === 0 && problems.length === 0) {
    problems.push({ file: paths.join(", ") || "(none)", line: 1, column: 1, path: "", message: "no desired-state files (.yaml, .yml, .json) found" });
  }
  const record = variables && recordVariables(variables, reading.used);
  for (const warning of variables ? unusedVariableWarnings(variables, reading.used) : []) {
    warnings.push(warning);
    options.onWarning?.(warning);
  }
  for (const problem of crossCheckDocuments(reading.documents)) problems.push(problem);
  if (problems.length > 0) {
    throw new DesiredStateError(problems, problems.every((problem) => UNREADABLE.has(problem)) ? DesiredStateHeadline.unreadable : DesiredStateHeadline.invalid);
  }
  let fingerprint: string | undefined;
  return {
    documents: reading.documents, files: files.length, skipped: reading.skipped, warnings,
    ...(record && (record.files.length > 0 || record.names.length > 0) ? { variables: record } : {}),
    // hashed when asked (drift reports it; validate, plan and apply never do)
    get fingerprint() {
      return (fingerprint ??= withVariables(fingerprintOf(reading.texts), record));
    },
  };
}

/** What reading the files collects: the valid documents, the problems, every file's text, the documents left unparsed, the variables used. */
interface Reading {
  readonly documents: LoadedDocument[];
  readonly problems: DesiredStateProblem[];
  readonly texts: string[];
  skipped: number;
  /** Names the interpolated files' texts refer to (found in the text, so that every shard of one run finds the same). */
  readonly used: Set<string>;
}

/** Reads, parses and validates one file (`-`: standard input), substituting `variables` when given. */
async function loadFile(file: string, name: string, variables: Variables | undefined, options: LoadOptions, reading: Reading): Promise<void> {
  let text: string;
  try {
    text = await readBoundedFile(file, name, "desired-state files", file === STDIN_PATH ? options.stdin ?? process.stdin : undefined);
  } catch (error) {
    reading.problems.push(unreadableProblem({ file: name, line: 1, column: 1, path: "", message: unreadable(error, name) }));
    return;
  }
  reading.texts.push(text);
  if (!options.cache || file === STDIN_PATH) {
    parseFile(text, name, variables, options, reading);
    return;
  }
  const key = loadCacheKey(name, text, variables);
  const cached = options.cache.find(key);
  if (cached) {
    reading.documents.push(...cached.documents);
    reading.problems.push(...cached.problems);
    reading.skipped += cached.skipped;
    for (const used of cached.used) reading.used.add(used);
    return;
  }
  const own: Reading = { documents: [], problems: [], texts: [], skipped: 0, used: new Set() };
  parseFile(text, name, variables, options, own);
  options.cache.keep(key, own);
  reading.documents.push(...own.documents);
  reading.problems.push(...own.problems);
  reading.skipped += own.skipped;
  for (const used of own.used) reading.used.add(used);
}

/** Parses and validates one file's text into `reading`, substituting `variables` when given. */
function parseFile(text: string, name: string, variables: Variables | undefined, options: LoadOptions, reading: Reading): void {
  let validate: Validate = validateDocument;
  if (variables) {
    const mayHold = scanReferences(text, reading.used);
    const budget = new SubstitutionBudget();
    validate = (raw) => (mayHold(raw.region.start, raw.region.end) ? validateWithVariables(raw, variables, budget) : validateDocument(raw));
  }
  if (!options.select) {
    validateInto(parseDocuments(text, name), reading, validate);
    return;
  }
  const selected = parseSelected(text, name, options.select);
  reading.skipped += selected.skipped;
  validateInto(selected.parsed, reading, validate, selected.keep);
}

type Validate = (raw: RawDocument) => { document: LoadedDocument } | { problems: DesiredStateProblem[] };

/** The texts' fingerprint, folded with the digest of the variables' values when the documents use some. */
function withVariables(fingerprint: string, record: VariablesRecord | undefined): string {
  if (!record || record.names.length === 0) return fingerprint;
  return createHash("sha256").update(`${fingerprint}\u0000variables\u0000${record.digest}`).digest("hex");
}

function fingerprintOf(texts: ReadonlyArray<string>): string {
  const hash = createHash("sha256");
  for (const text of texts) hash.update(`${text.length}\u0000`).update(text);
  return hash.digest("hex");
}

/**
 * The files of a path: the path itself (any file named explicitly is read, a FIFO or /dev/stdin
 * included), or the desired-state files of a directory, walked in sorted order. The file system is
 * read synchronously, here and for regular files below: loading is all a command does until it is
 * done, and a call through the thread pool per file and per entry cost more than the reads.
 */
function collectFiles(path: string, walk: Walk, explicit: boolean): void {
  const { files, warnings, display } = walk;
  let entries: Dirent[];
  try {
    if (!statSync(path).isDirectory()) {
      if (explicit) files.push(path);
      return;
    }
    entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const name = explicit ? path : display(path);
    walk.problems.push(unreadableProblem({
      file: name,
      line: 1,
      column: 1,
      path: "",
      message: `cannot read ${name}: ${describeFileError(error)}`,
    }));
    return;
  }
  for (const entry of entries) {
    // hidden entries are never desired state; a Kubernetes ConfigMap volume holds its files twice,
    // once under a hidden timestamped directory
    if (entry.name.startsWith(".")) continue;
    const full = join(path, entry.name);
    if (entry.isDirectory()) {
      collectFiles(full, walk, false);
      continue;
    }
    const wanted = EXTENSIONS.has(extname(entry.name)) && !entry.name.endsWith(".schema.json");
    if (entry.isFile()) {
      if (wanted) files.push(full);
      continue;
    }
    // a FIFO, socket or device named like desired state is not read (a FIFO would block the walk)
    if (!entry.isSymbolicLink()) {
      if (wanted) warnings.push(`skipped ${display(full)}: ${describeSpecialFile(entry)} is not a regular file`);
      continue;
    }
    // a symbolic link is read when it leads to a regular file (a ConfigMap volume's files are links)
    const target = linkTarget(full);
    if (typeof target === "object" && target.isFile()) {
      if (wanted) files.push(full);
    } else if (typeof target === "object" && target.isDirectory()) {
      warnings.push(`skipped ${display(full)}: a symbolic link to a directory (not followed)`);
    } else if (wanted) {
      warnings.push(`skipped ${display(full)}: `
        + (typeof target === "string" ? `a symbolic link that leads nowhere (${target})` : `a symbolic link to ${describeSpecialFile(target)}`));
    }
  }
}

/** What a directory walk collects, and what it found wrong. */
interface Walk {
  readonly files: string[];
  readonly warnings: string[];
  readonly problems: DesiredStateProblem[];
  readonly display: (file: string) => string;
}

/** What a symbolic link leads to, or why it leads nowhere (ENOENT, ELOOP, …). */
function linkTarget(link: string): Stats | string {
  try {
    return statSync(link);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

function describeSpecialFile(entry: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (entry.isFIFO()) return "a FIFO (named pipe)";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice()) return "a character device";
  if (entry.isBlockDevice()) return "a block device";
  return "an entry";
}

/**
 * Parses and validates one file's text (see parseDocuments): the valid documents, and the problems
 * of the others.
 */
export function parseDesiredText(text: string, file: string): { documents: LoadedDocument[]; problems: DesiredStateProblem[] } {
  const reading: Reading = { documents: [], problems: [], texts: [], skipped: 0, used: new Set() };
  validateInto(parseDocuments(text, file), reading, validateDocument);
  return { documents: reading.documents, problems: reading.problems };
}

function validateInto(
  parsed: ParsedDocuments,
  reading: Reading,
  validate: Validate,
  keep?: (raw: RawDocument, document: Document) => boolean,
): void {
  for (const raw of parsed.entries) {
    if (!(raw instanceof RawDocument)) {
      reading.problems.push(raw);
      continue;
    }
    const result = validate(raw);
    if (!("document" in result)) for (const problem of result.problems) reading.problems.push(problem);
    else if (!keep || keep(raw, result.document.document)) reading.documents.push(result.document);
  }
}

/**
 * The documents of a file a selection keeps: those whose read key is found without parsing them
 * and not selected are left unparsed (YAML regions) or unvalidated (JSON values); a kept document
 * whose key was found that way is checked to have that key once validated (an error if not: the
 * scan must never send a document to the wrong shard).
 */
function parseSelected(
  text: string,
  file: string,
  select: (readKey: string) => boolean,
): { parsed: ParsedDocuments; skipped: number; keep: (raw: RawDocument, document: Document) => boolean } {
  const lines = new LineIndex(text);
  const parsed: ParsedDocuments = { entries: [] };
  const scanned = new Map<unknown, string>();
  let skipped = 0;
  if (file.endsWith(".json")) {
    const all: ParsedDocuments = { entries: [] };
    parseJsonText(text, file, lines, all);
    for (const raw of all.entries) {
      if (!(raw instanceof RawDocument)) {
        parsed.entries.push(raw);
        continue;
      }
      const key = readKeyOfValue(raw.value);
      if (key !== undefined && !select(key)) skipped += 1;
      else {
        if (key !== undefined) scanned.set(raw, key);
        parsed.entries.push(raw);
      }
    }
  } else {
    const regions: TextRegion[] = [];
    for (const region of splitYamlDocuments(text)) {
      const key = scanReadKey(text, region);
      if (key !== undefined && !select(key)) skipped += 1;
      else {
        if (key !== undefined) scanned.set(region, key);
        regions.push(region);
      }
    }
    parseYamlText(text, file, lines, parsed, regions);
  }
  const keep = (raw: RawDocument, document: Document): boolean => {
    const key = readKeyText(modelOf(document.kind).readKey(document));
    const expected = scanned.get(raw) ?? scanned.get(raw.region);
    if (expected !== undefined && expected !== key) {
      throw new Error(`${raw.source.file}:${raw.source.line}: the document's read key ${key} is not the ${expected} found in its text without parsing it; `
        + `this is a bug of converge, please report it (run without --shard meanwhile)`);
    }
    return expected !== undefined || select(key);
  };
  return { parsed, skipped, keep };
}

/**
 * Parses one file's text: YAML (several documents separated by ---; a document that is a list holds
 * several documents) or, for a `.json` file, JSON (a document, or an array of documents). Returns
 * the documents, not yet validated, and the problems of what could not be parsed. Empty documents
 * (a trailing `---`, a document of comments only) are no documents.
 */
export function parseDocuments(text: string, file: string): ParsedDocuments {
  const lines = new LineIndex(text);
  const out: ParsedDocuments = { entries: [] };
  if (file.endsWith(".json")) {
    parseJsonText(text, file, lines, out);
  } else {
    parseYamlText(text, file, lines, out);
  }
  return out;
}
