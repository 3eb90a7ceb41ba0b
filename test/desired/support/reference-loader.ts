import { parseAllDocuments, isMap, isScalar, isSeq, type Document as YamlDocument, type Node as YamlNode } from "yaml";
import { describeZodIssues, formatFieldPath, isPlainObject, pinpointZodIssues, renderValue } from "../../../src/contract/field-issues.js";
import { DOCUMENT_SCHEMAS, KINDS, type Document, type Kind } from "../../../src/desired/schema.js";
import type { DesiredStateProblem, SourceLocation } from "../../../src/desired/desired-state-error.js";
import type { LoadedDocument } from "../../../src/desired/load.js";

/**
 * The loader as it was before js-yaml (release of 2026-11-22): every file composed by the yaml
 * library, every position read from its nodes. Kept as the reference the loader is compared with
 * (test/desired/loader-equivalence.test.ts): same documents, same sources, same problems. One
 * change: lines and columns are counted in the text itself. The yaml library's LineCounter, which
 * the old loader used, counts only the line breaks its lexer reached, so after some syntax errors it
 * put later problems on an earlier line (found by that test: "4:31" on a line of 17 characters).
 */

/**
 * Parses one file's text: YAML (several documents separated by ---) or JSON (a document, or an
 * array of documents). Returns the valid documents and the problems of the others.
 */
export function parseDesiredTextAsBefore(text: string, file: string): { documents: LoadedDocument[]; problems: DesiredStateProblem[] } {
  // logLevel "error", as the loader's (src/desired/yaml-library.ts): with the default, a random file
  // whose key is a collection made the library print a process warning into the suite's output
  const yamlDocuments = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  const documents: LoadedDocument[] = [];
  const problems: DesiredStateProblem[] = [];
  const at = (offset: number): SourceLocation => {
    const before = text.slice(0, offset);
    const line = before.split("\n").length;
    return { file, line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
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
  const problem = (path: ReadonlyArray<PropertyKey>, message: string): DesiredStateProblem => ({ ...locate(path), path: path.length ? formatFieldPath(path) : "", message });
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
