import { createHash } from "node:crypto";
import { createReadStream, readFileSync, readdirSync, statSync, type Dirent, type Stats } from "node:fs";
import { extname, join, relative } from "node:path";
import { formatFieldPath, isPlainObject, renderValue } from "../contract/field-issues.js";
import { crossCheckDocuments } from "./cross-check.js";
import { checkDocument } from "./document-value.js";
import { DesiredStateError, type DesiredStateProblem } from "./desired-state-error.js";
import { parseJsonText } from "./json-documents.js";
import { LineIndex } from "./line-index.js";
import type { LoadedDocument } from "./loaded-document.js";
import { FileDocument, RawDocument, type TextRegion } from "./raw-document.js";
import { KINDS, type Document, type Kind } from "./schema.js";
import { parseYamlText, splitYamlDocuments, type ParsedDocuments } from "./yaml-documents.js";
import { modelOf } from "./kinds/registry.js";
import { readKeyOfValue, scanReadKey } from "./read-key-scan.js";
import { readKeyText } from "./read-key.js";

export type { LoadedDocument } from "./loaded-document.js";

export interface DesiredState {
  readonly documents: ReadonlyArray<LoadedDocument>;
  /** How many files were read. */
  readonly files: number;
  /** Documents a selection (LoadOptions.select) left unparsed. */
  readonly skipped: number;
  /** sha256 of the text of every file read, in order: equal desired state, equal fingerprints. */
  readonly fingerprint: string;
  /** Entries of the directories walked that were skipped, each naming the entry and why. */
  readonly warnings: ReadonlyArray<string>;
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
}

/**
 * The largest desired-state file converge reads; a larger one is refused before it is read. At this
 * size a file of the smallest documents (about 300,000 RegionOptIn documents) loads in under 500 MiB.
 */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/**
 * Loads desired state from files and directories (recursively, in sorted order; hidden entries,
 * `*.schema.json` files and entries that are not regular files are skipped). Validates every
 * document and the documents against each other; throws one DesiredStateError listing every
 * problem, with file, line, column and field path.
 */
export async function loadDesiredState(paths: ReadonlyArray<string>, options: LoadOptions = {}): Promise<DesiredState> {
  const cwd = options.cwd ?? process.cwd();
  const problems: DesiredStateProblem[] = [];
  const warnings: string[] = [];
  const files: string[] = [];
  const display = (file: string) => relative(cwd, file) || file;
  for (const path of paths) collectFiles(path, { files, warnings, problems, display }, true);
  for (const warning of warnings) options.onWarning?.(warning);
  const texts: string[] = [];
  const documents: LoadedDocument[] = [];
  let skipped = 0;
  for (const file of files) {
    const name = display(file);
    let text: string;
    try {
      text = await readDesiredFile(file, name);
    } catch (error) {
      problems.push({
        file: name,
        line: 1,
        column: 1,
        path: "",
        message: error instanceof FileRefusal ? error.message : `cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      });
      continue;
    }
    texts.push(text);
    if (!options.select) {
      validateInto(parseDocuments(text, name), documents, problems);
      continue;
    }
    const selected = parseSelected(text, name, options.select);
    skipped += selected.skipped;
    validateInto(selected.parsed, documents, problems, selected.keep);
  }
  if (files.length === 0 && problems.length === 0) {
    problems.push({ file: paths.join(", ") || "(none)", line: 1, column: 1, path: "", message: "no desired-state files (.yaml, .yml, .json) found" });
  }
  for (const problem of crossCheckDocuments(documents)) problems.push(problem);
  if (problems.length > 0) throw new DesiredStateError(problems);
  let fingerprint: string | undefined;
  return {
    documents, files: files.length, skipped, warnings,
    // hashed when asked (drift reports it; validate, plan and apply never do)
    get fingerprint() {
      return (fingerprint ??= fingerprintOf(texts));
    },
  };
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
    walk.problems.push({
      file: name,
      line: 1,
      column: 1,
      path: "",
      message: `cannot read ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    });
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

/** A file converge will not read, with the reason (the message names the file). */
class FileRefusal extends Error {}

function tooLarge(name: string, bytes: string): FileRefusal {
  return new FileRefusal(`${name} is ${bytes}: desired-state files are limited to ${MAX_FILE_BYTES / 1024 / 1024} MiB each; `
    + `split it into several files (a directory is read as one desired state)`);
}

/** A file's text, refused past MAX_FILE_BYTES; a FIFO or device named explicitly is read up to the limit. */
async function readDesiredFile(file: string, name: string): Promise<string> {
  const info = statSync(file);
  if (info.isFile()) {
    if (info.size > MAX_FILE_BYTES) throw tooLarge(name, `${(info.size / 1024 / 1024).toFixed(1)} MiB`);
    return readFileSync(file, "utf8");
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    size += (chunk as Buffer).length;
    if (size > MAX_FILE_BYTES) throw tooLarge(name, "larger than that");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Parses and validates one file's text (see parseDocuments): the valid documents, and the problems
 * of the others.
 */
export function parseDesiredText(text: string, file: string): { documents: LoadedDocument[]; problems: DesiredStateProblem[] } {
  const documents: LoadedDocument[] = [];
  const problems: DesiredStateProblem[] = [];
  validateInto(parseDocuments(text, file), documents, problems);
  return { documents, problems };
}

function validateInto(
  parsed: ParsedDocuments,
  documents: LoadedDocument[],
  problems: DesiredStateProblem[],
  keep?: (raw: RawDocument, document: Document) => boolean,
): void {
  for (const raw of parsed.entries) {
    if (!(raw instanceof RawDocument)) {
      problems.push(raw);
      continue;
    }
    const result = validateDocument(raw);
    if (!("document" in result)) for (const problem of result.problems) problems.push(problem);
    else if (!keep || keep(raw, result.document.document)) documents.push(result.document);
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

/** Validates one parsed document against the schema of its kind. */
export function validateDocument(raw: RawDocument): { document: LoadedDocument } | { problems: DesiredStateProblem[] } {
  const value = raw.value;
  const problem = (path: ReadonlyArray<PropertyKey>, message: string): DesiredStateProblem => ({
    ...raw.locate(path),
    path: path.length ? formatFieldPath(path) : "",
    message,
  });
  if (!isPlainObject(value)) {
    return { problems: [problem([], `a document must be a mapping with kind and spec, received ${renderValue(value)}`)] };
  }
  const kind = value.kind;
  if (kind === undefined && "formatVersion" in value && "liveFingerprint" in value && "actions" in value) {
    return { problems: [problem([], "this is a plan written by converge plan --out, not desired state: "
      + "write plans outside the directories passed to -f, and apply them with converge apply PLAN.json")] };
  }
  if (typeof kind !== "string" || !(KINDS as ReadonlyArray<string>).includes(kind)) {
    const received = kind === undefined ? "kind is missing" : `kind ${renderValue(kind)} is not valid`;
    return { problems: [problem(["kind"], `${received}: expected one of ${KINDS.join(", ")}`)] };
  }
  const checked = checkDocument(kind as Kind, value);
  if ("issues" in checked) return { problems: checked.issues.map((issue) => problem(issue.path, issue.message)) };
  return { document: new FileDocument(checked.document, raw.locator) };
}
