import { createRequire } from "node:module";
import type * as JsoncParser from "jsonc-parser";
import type { LineIndex } from "./line-index.js";
import { excessiveNestingOffset } from "../input-limits/nesting.js";
import { NO_PREFIX, RawDocument, type TextRegion } from "./raw-document.js";
import { nestingRefusal, parseComposedRegion, type ParsedDocuments } from "./yaml-documents.js";

/**
 * Appends the documents of a JSON file: one document, or an array of documents. Values come from
 * JSON.parse; one scan finds where the root and each item of a root array start, and whether an
 * object repeats a key (which JSON.parse would silently resolve to the last value). A file with a
 * repeated key, or that JSON.parse refuses (comments, single quotes, a syntax error), is read as
 * YAML by the yaml library instead, as converge always read JSON, with that library's messages.
 * A text that nests deeper than MAX_NESTING_DEPTH is refused before any of them reads it.
 */
export function parseJsonText(text: string, file: string, lines: LineIndex, out: ParsedDocuments): void {
  const tooDeep = excessiveNestingOffset(text);
  if (tooDeep !== undefined) {
    out.entries.push(nestingRefusal(file, lines, tooDeep));
    return;
  }
  const region: TextRegion = { start: 0, end: text.length };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    parseComposedRegion(text, region, file, lines, "JSON", out);
    return;
  }
  const layout = scanJson(text);
  if (layout.repeatedKey) {
    parseComposedRegion(text, region, file, lines, "JSON", out);
    return;
  }
  const origin = { file, text, lines, region, documentIndex: 0, regionRootOffset: layout.rootOffset };
  if (Array.isArray(value)) {
    value.forEach((item, position) => out.entries.push(new RawDocument(item, origin, [position], layout.itemOffsets[position])));
  } else {
    out.entries.push(new RawDocument(value, origin, NO_PREFIX, layout.rootOffset));
  }
}

let jsoncParser: typeof JsoncParser | undefined;

/** jsonc-parser, loaded when the first JSON file is read (a run of YAML files never loads it). */
function visit(...args: Parameters<typeof JsoncParser.visit>): ReturnType<typeof JsoncParser.visit> {
  jsoncParser ??= createRequire(import.meta.url)("jsonc-parser") as typeof JsoncParser;
  return jsoncParser.visit(...args);
}

/** Where a JSON text's root value and the items of a root array start, and whether some object repeats a key. */
function scanJson(text: string): { rootOffset: number | undefined; itemOffsets: number[]; repeatedKey: boolean } {
  let rootOffset: number | undefined;
  const itemOffsets: number[] = [];
  let repeatedKey = false;
  let depth = 0;
  let rootIsArray = false;
  const keys: Array<Set<string>> = [];
  const value = (offset: number) => {
    if (depth === 0) rootOffset = offset;
    else if (depth === 1 && rootIsArray) itemOffsets.push(offset);
  };
  visit(text, {
    onObjectBegin(offset) {
      value(offset);
      depth += 1;
      keys.push(new Set());
    },
    onObjectEnd() {
      depth -= 1;
      keys.pop();
    },
    onArrayBegin(offset) {
      value(offset);
      if (depth === 0) rootIsArray = true;
      depth += 1;
    },
    onArrayEnd() {
      depth -= 1;
    },
    onLiteralValue(_value, offset) {
      value(offset);
    },
    onObjectProperty(property) {
      const seen = keys[keys.length - 1]!;
      if (seen.has(property)) repeatedKey = true;
      seen.add(property);
    },
  }, { disallowComments: true });
  return { rootOffset, itemOffsets, repeatedKey };
}
