import { Document, isCollection, isMap, isScalar, Scalar, visit } from "yaml";
import type { ExportedDocument, ExportedFile } from "./export.js";
import { engineOf } from "./kinds/registry.js";

export interface RenderExportOptions {
  /** The `$schema` the editor modeline points at; `undefined` leaves the modeline out. @default "./converge.schema.json" */
  readonly schema?: string | undefined;
}

/**
 * An exported file as YAML: the editor modeline and header comments, the documents separated by
 * `---`, then the commented resources, each line behind `# `. The `yaml` package quotes what needs
 * quoting ("$default" stays plain, "1.0", "+1" and "222222222222" stay strings), and long strings are
 * never folded, so that the text loads back as exactly the documents.
 */
export function renderExportedFile(file: ExportedFile, options: RenderExportOptions = { schema: "./converge.schema.json" }): string {
  const lines: string[] = [];
  if (options.schema !== undefined) lines.push(`# yaml-language-server: $schema=${options.schema}`);
  lines.push(...file.header.map(commentLine));
  let text = `${lines.join("\n")}\n${file.documents.map(renderDocument).join("---\n")}`;
  if (file.commented.documents.length > 0) {
    const block = [
      "",
      ...file.commented.note.map(commentLine),
      ...file.commented.documents.flatMap((document, index) => [
        ...(index > 0 ? ["# ---"] : []),
        ...renderDocument(document).trimEnd().split("\n").map(commentLine),
      ]),
    ];
    text += `${block.join("\n")}\n`;
  }
  return text;
}

/** Several files as one YAML stream (for stdout): the modeline once, then each file after `---`. */
export function renderExportStream(files: ReadonlyArray<ExportedFile>, options: RenderExportOptions = { schema: "./converge.schema.json" }): string {
  return files.map((file, index) => renderExportedFile(file, index === 0 ? options : { schema: undefined })).join("---\n");
}

function commentLine(line: string): string {
  return line === "" ? "#" : `# ${line}`;
}

/**
 * One document as YAML, as export writes it (and `converge render`): short values in flow style,
 * what needs quoting quoted, nothing folded, so that the text loads back as exactly the document.
 */
export function renderDocument(document: ExportedDocument): string {
  const yaml = new Document(document, { aliasDuplicateObjects: false });
  // short values on one line, as the examples write them: what each kind writes in flow style (a Region
  // opt-in's spec, a route's target), lists of scalars
  for (const path of engineOf(document.kind).flowPaths ?? []) flowAt(yaml, path);
  visit(yaml, {
    Seq(_, node) {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
    },
  });
  // double quotes are never ambiguous: yaml 2.9 writes a multi-line string inside a flow collection
  // as a plain scalar (one whose line starts with "-" then reads back as a block sequence), and a
  // block scalar cannot hold every string
  visit(yaml, {
    Scalar(_, node, path) {
      if (typeof node.value === "string" && node.value.includes("\n")
        && (path.some((ancestor) => isCollection(ancestor) && ancestor.flow) || !blockScalarHolds(node.value))) {
        node.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
  return yaml.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/**
 * Whether a block scalar (`|`) reads back as exactly `text`: not when a line holds only blanks (a
 * block scalar's indentation is found from its first line with content, and a line of blanks is
 * read as an empty line, losing them), nor when it holds a carriage return (block scalars
 * normalize line breaks) or starts with a blank, nor when it ends in an empty line (`|+`, keep
 * chomping, takes every blank line after it too: the one before the commented resources included).
 */
function blockScalarHolds(text: string): boolean {
  return !text.includes("\r") && !/^[ \t]/.test(text) && !/(^|\n)\n$/.test(text)
    && !text.split("\n").some((line) => line !== "" && line.trim() === "");
}

function flowAt(yaml: Document, path: ReadonlyArray<string>): void {
  const node = yaml.getIn(path, true);
  if (isMap(node)) node.flow = true;
}
