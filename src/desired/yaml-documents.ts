import { createRequire } from "node:module";
import type * as JsYaml from "js-yaml";
import type { Event } from "js-yaml";
import { MAX_NESTING_DEPTH, excessiveNestingOffset, nestingProblem } from "../input-limits/nesting.js";
import type { DesiredStateProblem } from "./desired-state-error.js";
import type { LineIndex } from "./line-index.js";
import { NO_PREFIX, RawDocument, rememberComposed, type TextRegion } from "./raw-document.js";
import { composeDocuments, yamlLibrary } from "./yaml-library.js";

/**
 * js-yaml, through its CommonJS build: on Node 20 the same parser runs about twice as fast from it
 * as from its ES module build (measured on the benchmark estate: 5,440 documents in 150 ms against
 * 320 ms, cold), and parsing is most of what loading costs.
 */
const {
  EVENT_ALIAS,
  EVENT_DOCUMENT,
  EVENT_MAPPING,
  EVENT_POP,
  EVENT_SCALAR,
  EVENT_SEQUENCE,
  SCALAR_STYLE_PLAIN,
  constructFromEvents,
  parseEvents,
} = createRequire(import.meta.url)("js-yaml") as typeof JsYaml;

/**
 * What parsing one file gives, in the file's order: each document, or the problem of what could not
 * be parsed (so that problems are listed in the order of the file).
 */
export interface ParsedDocuments {
  readonly entries: Array<RawDocument | DesiredStateProblem>;
}

/** The most values one document may hold once its YAML aliases are expanded (a larger one is an alias bomb). */
export const MAX_EXPANDED_VALUES = 10_000;

/** A document marker at the start of a line: `---` or `...`, then a blank or the end of the line. */
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/**
 * Splits a YAML stream into regions that each parse on their own: a `---` line starts a region, a
 * `...` line ends one. At the start of a line these are always document markers (YAML forbids them
 * as content), so a region holds one document (or leading comments). A stream with directives
 * (`%YAML`, `%TAG`, which apply to the next document) is left in one region.
 */
export function splitYamlDocuments(text: string): TextRegion[] {
  if (/^%/m.test(text)) return [{ start: 0, end: text.length }];
  const regions: TextRegion[] = [];
  let start = 0;
  for (const match of text.matchAll(DOCUMENT_MARKER)) {
    const at = match.index;
    if (match[0] === "---") {
      if (at > start) regions.push({ start, end: at });
      start = at;
    } else {
      const newline = text.indexOf("\n", at);
      const end = newline === -1 ? text.length : newline + 1;
      regions.push({ start, end });
      start = end;
    }
  }
  if (start < text.length) regions.push({ start, end: text.length });
  return regions;
}

/** How much text one call of the parser takes at most (its events are kept until the values are built). */
const MAX_BATCH_CHARS = 1 << 16;

/**
 * Appends the documents of a YAML file's regions: parsed by js-yaml in batches of regions (one call
 * per batch, not per document: per-call overhead weighs as much as parsing a small document), each
 * document located in the file; a batch js-yaml refuses is parsed again region by region, and a
 * region it refuses by the yaml library, whose messages converge reports. A region that nests
 * deeper than MAX_NESTING_DEPTH is refused before any parser sees it (both recurse once per level).
 */
export function parseYamlText(
  text: string,
  file: string,
  lines: LineIndex,
  out: ParsedDocuments,
  regions: ReadonlyArray<TextRegion> = splitYamlDocuments(text),
): void {
  let batch: TextRegion[] = [];
  let size = 0;
  for (const region of regions) {
    if (batch.length > 0 && size + region.end - region.start > MAX_BATCH_CHARS) {
      parseWithinDepth(text, batch, file, lines, out);
      batch = [];
      size = 0;
    }
    batch.push(region);
    size += region.end - region.start;
  }
  if (batch.length > 0) parseWithinDepth(text, batch, file, lines, out);
}

/**
 * Parses a batch of regions but those that nest too deeply, which are refused in their place. The
 * batch's text is scanned in one call (the scan counts documents one by one, so that is the same
 * as scanning each region, and one call per small document cost more than the scan); only when it
 * nests too deeply are its regions scanned one by one.
 */
function parseWithinDepth(text: string, batch: ReadonlyArray<TextRegion>, file: string, lines: LineIndex, out: ParsedDocuments): void {
  if (excessiveNestingOffset(text, batch[0]!.start, batch[batch.length - 1]!.end) === undefined) {
    parseBatch(text, batch, file, lines, out);
    return;
  }
  let kept: TextRegion[] = [];
  for (const region of batch) {
    const tooDeep = excessiveNestingOffset(text, region.start, region.end);
    if (tooDeep === undefined) {
      kept.push(region);
      continue;
    }
    // in the file's order: the documents before it first
    if (kept.length > 0) parseBatch(text, kept, file, lines, out);
    kept = [];
    out.entries.push(nestingRefusal(file, lines, tooDeep));
  }
  if (kept.length > 0) parseBatch(text, kept, file, lines, out);
}

/** A region's text inside a batch's source: it starts at `at` there. */
interface Piece {
  readonly region: TextRegion;
  readonly at: number;
}

/**
 * The text js-yaml parses for a batch of regions: the file's text between them when they follow
 * each other, else their texts joined, a region that does not open with `---` (the file's first,
 * or one after a `...` line) given one so that it stays a document of its own.
 */
function batchSource(text: string, regions: ReadonlyArray<TextRegion>): { source: string; pieces: Piece[] } {
  const first = regions[0]!;
  if (regions.every((region, index) => index === 0 || region.start === regions[index - 1]!.end)) {
    const last = regions[regions.length - 1]!;
    return {
      source: first.start === 0 && last.end === text.length ? text : text.slice(first.start, last.end),
      pieces: regions.map((region) => ({ region, at: region.start - first.start })),
    };
  }
  const parts: string[] = [];
  const pieces: Piece[] = [];
  let length = 0;
  for (const region of regions) {
    if (parts.length > 0 && !text.startsWith("---", region.start)) {
      parts.push("---\n");
      length += 4;
    }
    pieces.push({ region, at: length });
    parts.push(text.slice(region.start, region.end));
    length += region.end - region.start;
  }
  return { source: parts.join(""), pieces };
}

function parseBatch(text: string, regions: ReadonlyArray<TextRegion>, file: string, lines: LineIndex, out: ParsedDocuments): void {
  const { source, pieces } = batchSource(text, regions);
  let events: Event[];
  let values: unknown[];
  try {
    events = parseEvents(source, {});
    values = constructFromEvents(events, { source });
  } catch {
    if (regions.length === 1) parseComposedRegion(text, regions[0]!, file, lines, "YAML", out);
    else for (const region of regions) parseBatch(text, [region], file, lines, out);
    return;
  }
  const inFile = locatorOf(pieces);
  const { documents, aliases } = documentRoots(events);
  // a region holds one document, but for a stream with directives (one region): count them per region
  const perRegion = new Map<TextRegion, number>();
  for (const { index, root, items } of documents) {
    if (!root) continue;
    const { region, offset: rootPosition } = inFile(positionOf(root));
    const indexInRegion = perRegion.get(region) ?? 0;
    perRegion.set(region, indexInRegion + 1);
    if (isEmptyNode(root)) continue;
    const value = values[index];
    const regionRootOffset = isCollection(root) ? rootPosition : undefined;
    const origin = { file, text, lines, region, documentIndex: indexInRegion, regionRootOffset };
    if (aliases > 0) {
      const refusal = expansionRefusal(value);
      if (refusal) {
        out.entries.push(problemAtDocument(new RawDocument(value, origin, NO_PREFIX, regionRootOffset), refusal));
        continue;
      }
    }
    if (root.type === EVENT_SEQUENCE) {
      const list = value as unknown[];
      items.forEach((item, position) =>
        out.entries.push(new RawDocument(list[position], origin, [position], isCollection(item) ? inFile(positionOf(item)).offset : undefined)));
    } else {
      out.entries.push(new RawDocument(value, origin, NO_PREFIX, regionRootOffset));
    }
  }
}

/**
 * Where an offset of a batch's source is in the file: its region, and its offset in the file's text.
 * Offsets are asked in increasing order (documents come in the order of the pieces), so the piece
 * of an offset is found walking forward.
 */
function locatorOf(pieces: ReadonlyArray<Piece>): (offset: number) => { region: TextRegion; offset: number } {
  let piece = 0;
  return (offset) => {
    while (piece + 1 < pieces.length && pieces[piece + 1]!.at <= offset) piece += 1;
    const { region, at } = pieces[piece]!;
    return { region, offset: region.start + offset - at };
  };
}

/** A document of a batch's events: its index, its root node, and the items of a root list. */
interface DocumentRoot {
  readonly index: number;
  root?: Event;
  readonly items: Event[];
}

/** Each document's root node and the items of a root list (depth is followed only inside a list), and how many aliases the events hold. */
function documentRoots(events: ReadonlyArray<Event>): { documents: DocumentRoot[]; aliases: number } {
  const documents: DocumentRoot[] = [];
  let aliases = 0;
  let depth = 0;
  let current: DocumentRoot | undefined;
  for (const event of events) {
    const type = event.type;
    if (type === EVENT_DOCUMENT) {
      current = { index: documents.length, items: [] };
      documents.push(current);
      continue;
    }
    if (type === EVENT_ALIAS) aliases += 1;
    if (current!.root === undefined) {
      if (type === EVENT_POP) continue;
      current!.root = event;
      depth = 1;
    } else if (current!.root.type === EVENT_SEQUENCE && depth > 0) {
      if (type === EVENT_POP) depth -= 1;
      else {
        if (depth === 1) current!.items.push(event);
        if (type === EVENT_MAPPING || type === EVENT_SEQUENCE) depth += 1;
      }
    }
  }
  return { documents, aliases };
}

/** Where a node's event says it starts: a collection's first key or item (past any anchor or tag, as the yaml library counts it), a scalar's value. */
function positionOf(event: Event): number {
  if (event.type === EVENT_MAPPING || event.type === EVENT_SEQUENCE) return event.start;
  if (event.type === EVENT_SCALAR) return event.valueStart;
  return "anchorStart" in event ? event.anchorStart : 0;
}

function isCollection(event: Event): boolean {
  return event.type === EVENT_MAPPING || event.type === EVENT_SEQUENCE;
}

/** A node with no content: an empty document (a trailing `---`, a document of comments only). */
function isEmptyNode(event: Event): boolean {
  return event.type === EVENT_SCALAR && event.valueStart === event.valueEnd && event.style === SCALAR_STYLE_PLAIN
    && event.tagStart === -1 && event.anchorStart === -1;
}

/** The problem of a text that nests too deeply, at the place where it opens one level too many. */
export function nestingRefusal(file: string, lines: LineIndex, offset: number): DesiredStateProblem {
  return { file, ...lines.position(offset), path: "", message: nestingProblem() };
}

/**
 * Why a document built through YAML aliases is refused: it refers to itself (a cycle), it expands
 * to more than MAX_EXPANDED_VALUES values (an alias bomb, which every later walk over it would pay),
 * or it nests deeper than MAX_NESTING_DEPTH (an alias to a deep node inside a deep node: its text
 * nests within the limit, its value does not). Walked without recursion, each shared node once.
 */
export function expansionRefusal(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const measured = new Map<object, { readonly size: number; readonly depth: number }>();
  const open = new Set<object>();
  const stack: Array<{ readonly node: object; readonly children: unknown[]; next: number; size: number; depth: number }> = [];
  const enter = (node: object) => {
    open.add(node);
    stack.push({ node, children: Array.isArray(node) ? node : Object.values(node), next: 0, size: 1, depth: 1 });
  };
  const tooDeep = nestingProblem(" once its YAML aliases are expanded");
  enter(value);
  let root = { size: 1, depth: 1 };
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next < frame.children.length && frame.size <= MAX_EXPANDED_VALUES) {
      const child = frame.children[frame.next++];
      if (child === null || typeof child !== "object") {
        frame.size += 1;
        continue;
      }
      if (open.has(child)) return "a YAML alias refers to a node that contains it: expected a document without cycles";
      const known = measured.get(child);
      if (known) {
        if (stack.length + known.depth > MAX_NESTING_DEPTH) return tooDeep;
        frame.size += known.size;
        frame.depth = Math.max(frame.depth, known.depth + 1);
      } else if (stack.length >= MAX_NESTING_DEPTH) {
        return tooDeep;
      } else {
        enter(child);
      }
      continue;
    }
    stack.pop();
    open.delete(frame.node);
    root = { size: frame.size, depth: frame.depth };
    measured.set(frame.node, root);
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.size += frame.size;
      parent.depth = Math.max(parent.depth, frame.depth + 1);
    }
  }
  if (root.size > MAX_EXPANDED_VALUES) {
    return `the document's YAML aliases expand to more than ${MAX_EXPANDED_VALUES} values (an alias bomb?): `
      + `expected a document of at most ${MAX_EXPANDED_VALUES} values once aliases are expanded`;
  }
  if (root.depth > MAX_NESTING_DEPTH) return tooDeep;
  return undefined;
}

function problemAtDocument(document: RawDocument, message: string): DesiredStateProblem {
  return { ...document.source, path: "", message };
}

/**
 * Parses one region with the yaml library, which composes every node with its position: for what
 * js-yaml refuses (so that every message is the one this library words) and for JSON that
 * JSON.parse refuses (comments, single quotes). Slower, but only such files pay for it.
 */
export function parseComposedRegion(text: string, region: TextRegion, file: string, lines: LineIndex, language: "YAML" | "JSON", out: ParsedDocuments): void {
  const { isScalar, isSeq } = yamlLibrary();
  const composed = composeDocuments(text.slice(region.start, region.end));
  rememberComposed(region, composed);
  composed.forEach((yamlDocument, documentIndex) => {
    if (yamlDocument.errors.length > 0) {
      for (const error of yamlDocument.errors) {
        const { line, column } = lines.position(region.start + error.pos[0]);
        out.entries.push({ file, line, column, path: "", message: `not valid ${language}: ${error.message.split("\n")[0]}` });
      }
      return;
    }
    const contents = yamlDocument.contents;
    if (contents === null
      || (isScalar(contents) && contents.value === null && contents.range?.[0] === contents.range?.[1] && !contents.tag && !contents.anchor)) {
      return;
    }
    const regionRootOffset = contents.range ? region.start + contents.range[0] : undefined;
    const origin = { file, text, lines, region, documentIndex, regionRootOffset };
    let value: unknown;
    try {
      value = yamlDocument.toJS({ maxAliasCount: MAX_EXPANDED_VALUES });
    } catch (error) {
      out.entries.push(problemAtDocument(new RawDocument(undefined, origin, NO_PREFIX, regionRootOffset),
        `the document cannot be read: ${(error as Error).message}`));
      return;
    }
    const refusal = expansionRefusal(value);
    if (refusal) {
      out.entries.push(problemAtDocument(new RawDocument(value, origin, NO_PREFIX, regionRootOffset), refusal));
    } else if (isSeq(contents)) {
      const list = value as unknown[];
      contents.items.forEach((item, position) => {
        const start = (item as { range?: [number, number, number] }).range?.[0];
        out.entries.push(new RawDocument(list[position], origin, [position], start === undefined ? undefined : region.start + start));
      });
    } else {
      out.entries.push(new RawDocument(value, origin, NO_PREFIX, regionRootOffset));
    }
  });
}
