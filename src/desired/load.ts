import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, relative } from "node:path";
import { LineCounter, parseAllDocuments, isMap, isScalar, isSeq, type Document as YamlDocument, type Node as YamlNode } from "yaml";
import { describeZodIssues, formatPath, isPlainObject, pinpointZodIssues, renderValue } from "../spec/field-issues.js";
import { DOCUMENT_SCHEMAS, KINDS, type Document, type Kind } from "./schema.js";
import { DesiredStateError, type DesiredStateProblem, type SourceLocation } from "./desired-state-error.js";
import { crossCheckDocuments } from "./cross-check.js";

/** A validated document with where it came from. */
export interface LoadedDocument<D extends Document = Document> {
  readonly document: D;
  /** Where the document starts. */
  readonly source: SourceLocation;
  /** Where a field of the document stands (the nearest existing parent when the field is absent). */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation;
}

export interface DesiredState {
  readonly documents: ReadonlyArray<LoadedDocument>;
}

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/**
 * Loads desired state from files and directories (recursively, in sorted order; hidden entries and
 * `*.schema.json` files are skipped). Validates every document and the documents against each other; throws one
 * DesiredStateError listing every problem, with file, line, column and field path.
 */
export async function loadDesiredState(paths: ReadonlyArray<string>, cwd = process.cwd()): Promise<DesiredState> {
  const problems: DesiredStateProblem[] = [];
  const files: string[] = [];
  for (const path of paths) {
    try {
      files.push(...(await expand(path)));
    } catch (error) {
      problems.push({ file: path, line: 1, column: 1, path: "", message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
    }
  }
  const documents: LoadedDocument[] = [];
  for (const file of files) {
    const display = relative(cwd, file) || file;
    const parsed = parseDesiredText(await readFile(file, "utf8"), display);
    documents.push(...parsed.documents);
    problems.push(...parsed.problems);
  }
  if (files.length === 0 && problems.length === 0) {
    problems.push({ file: paths.join(", ") || "(none)", line: 1, column: 1, path: "", message: "no desired-state files (.yaml, .yml, .json) found" });
  }
  problems.push(...crossCheckDocuments(documents));
  if (problems.length > 0) throw new DesiredStateError(problems);
  return { documents };
}

async function expand(path: string): Promise<string[]> {
  const info = await stat(path);
  if (!info.isDirectory()) return [path];
  const out: string[] = [];
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    // hidden entries are never desired state; a Kubernetes ConfigMap volume holds its files twice,
    // once under a hidden timestamped directory
    if (entry.name.startsWith(".")) continue;
    const full = join(path, entry.name);
    if (entry.isDirectory()) out.push(...(await expand(full)));
    else if (EXTENSIONS.has(extname(entry.name)) && !entry.name.endsWith(".schema.json")) out.push(full);
  }
  return out;
}

/**
 * Parses one file's text: YAML (several documents separated by ---) or JSON (a document, or an
 * array of documents). Returns the valid documents and the problems of the others.
 */
export function parseDesiredText(text: string, file: string): { documents: LoadedDocument[]; problems: DesiredStateProblem[] } {
  const lineCounter = new LineCounter();
  const yamlDocuments = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const documents: LoadedDocument[] = [];
  const problems: DesiredStateProblem[] = [];
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  if (!Array.isArray(yamlDocuments)) {
    problems.push({ ...at(0), path: "", message: "the file is not a YAML stream" });
    return { documents, problems };
  }
  for (const yamlDocument of yamlDocuments) {
    if (yamlDocument.errors.length > 0) {
      for (const error of yamlDocument.errors) {
        problems.push({ ...at(error.pos[0]), path: "", message: `not valid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${error.message.split("\n")[0]}` });
      }
      continue;
    }
    const contents = yamlDocument.contents;
    if (contents === null) continue; // an empty document (e.g. a trailing ---)
    if (isSeq(contents)) {
      contents.items.forEach((_, index) => {
        const result = validateDocument(yamlDocument, [index], at);
        if ("document" in result) documents.push(result.document);
        else problems.push(...result.problems);
      });
    } else {
      const result = validateDocument(yamlDocument, [], at);
      if ("document" in result) documents.push(result.document);
      else problems.push(...result.problems);
    }
  }
  return { documents, problems };
}

function validateDocument(
  yamlDocument: YamlDocument.Parsed,
  prefix: ReadonlyArray<number>,
  at: (offset: number) => SourceLocation,
): { document: LoadedDocument } | { problems: DesiredStateProblem[] } {
  const locate = (path: ReadonlyArray<PropertyKey>): SourceLocation => {
    for (let length = path.length; length >= 0; length -= 1) {
      const full = [...prefix, ...path.slice(0, length)];
      // a field of a mapping stands where its key is written (a block value starts on a later line)
      const parent = length > 0 ? yamlDocument.getIn(full.slice(0, -1), true) : undefined;
      if (isMap(parent)) {
        const pair = parent.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === full[full.length - 1]);
        if (pair && isScalar(pair.key) && pair.key.range) return at(pair.key.range[0]);
      }
      const node = yamlDocument.getIn(full, true) as YamlNode | undefined;
      if (node && typeof node === "object" && node.range) return at(node.range[0]);
    }
    return at(0);
  };
  const node = yamlDocument.getIn(prefix, true) as YamlNode | undefined;
  // getIn() returns the YAML node of a collection, not its value: index the plain value instead
  const raw: unknown = prefix.reduce<unknown>((value, index) => (Array.isArray(value) ? value[index] : undefined), yamlDocument.toJS());
  const problem = (path: ReadonlyArray<PropertyKey>, message: string): DesiredStateProblem => ({ ...locate(path), path: path.length ? formatPath(path) : "", message });
  if (!isPlainObject(raw) || (node && !isMap(node))) {
    return { problems: [problem([], `a document must be a mapping with kind and spec, received ${renderValue(raw)}`)] };
  }
  const kind = raw.kind;
  if (kind === undefined && "formatVersion" in raw && "liveFingerprint" in raw && "actions" in raw) {
    return { problems: [problem([], "this is a plan written by converge plan --out, not desired state: write plans outside the directories passed to -f, and apply them with converge apply PLAN.json")] };
  }
  if (typeof kind !== "string" || !(KINDS as ReadonlyArray<string>).includes(kind)) {
    const received = kind === undefined ? "kind is missing" : `kind ${renderValue(kind)} is not valid`;
    return { problems: [problem(["kind"], `${received}: expected one of ${KINDS.join(", ")}`)] };
  }
  const result = DOCUMENT_SCHEMAS[kind as Kind].safeParse(raw);
  if (!result.success) {
    return { problems: describeZodIssues(pinpointZodIssues(result.error.issues), raw).map((issue) => problem(issue.path ?? [], issue.message)) };
  }
  return { document: { document: result.data as Document, source: locate([]), locate } };
}
