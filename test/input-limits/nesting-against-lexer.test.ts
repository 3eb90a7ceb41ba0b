import { createRequire } from "node:module";
import fc from "fast-check";
import type * as JsYaml from "js-yaml";
import { Document, isNode, visit } from "yaml";
import { describe, expect, it } from "vitest";
import { lexedNestingOffset } from "../support/lexed-nesting.js";
import { MAX_NESTING_DEPTH, excessiveNestingOffset } from "../../src/input-limits/nesting.js";

/**
 * The nesting count read from the yaml library's lexer against the hand-written scanner
 * (src/input-limits/nesting.ts): on generated documents (JSON, YAML block and flow, both mixed,
 * comments, quoted strings holding brackets, anchors and aliases, streams of several documents,
 * shallow and deeper than MAX_NESTING_DEPTH) both give the same offset, or both none, at every limit.
 */

const jsYaml = createRequire(import.meta.url)("js-yaml") as typeof JsYaml;
const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

/** Both answers at every limit from 0 to `highest`, and at the default one. */
function answers(text: string, highest: number): { scanner: Array<number | undefined>; lexer: Array<number | undefined> } {
  const limits = [...Array.from({ length: highest + 1 }, (_, limit) => limit), MAX_NESTING_DEPTH];
  return {
    scanner: limits.map((limit) => excessiveNestingOffset(text, 0, text.length, limit)),
    lexer: limits.map((limit) => lexedNestingOffset(text, 0, text.length, limit)),
  };
}

/** Strings that look like YAML (indicators, brackets, quotes, comments, markers) and ordinary words. */
const text = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9 ./@+_()[\]{}'"#-]{0,10}[A-Za-z0-9])?$/),
  fc.constantFrom("[", "]", "{", "}", "- x", "a: b", "#", " #c", "'", '"', "[[[", "]]]", "|", ">", "- - ", "? ", "&a", "*a", "!t", ": ", "x\ny", "a\n  - b", "---", "...", "%YAML", "\\"),
);
/** Values of up to `depth` levels; a collection may appear twice, so that the yaml library writes an anchor and an alias. */
const values = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.boolean(), fc.constant(null), tie("list"), tie("map"), tie("shared")),
  list: fc.array(tie("value"), { maxLength: 4 }),
  map: fc.dictionary(text, tie("value"), { maxKeys: 4 }),
  shared: tie("list").map((list) => [list, list]),
})).value;
/** A value wrapped in `levels` lists or single-key mappings. */
const deepValues = fc.tuple(values, fc.integer({ min: MAX_NESTING_DEPTH - 4, max: MAX_NESTING_DEPTH + 4 }), fc.boolean()).map(([value, levels, lists]) => {
  let deep: unknown = value;
  for (let level = 0; level < levels; level += 1) deep = lists ? [deep] : { k: deep };
  return deep;
});

/** The yaml library's text of a value, comments on some of its nodes. */
function yamlText(value: unknown, options: { indent: number; indentSeq: boolean; flowLevel: number; comments: boolean }): string {
  const document = new Document(value);
  let count = 0;
  visit(document, (_key, node) => {
    count += 1;
    if (!isNode(node)) return;
    if (options.comments && count % 3 === 0) node.commentBefore = " [[ { a: - b";
    if (options.comments && count % 4 === 1) node.comment = " ]] } '\"";
    if (options.flowLevel === 0 && "flow" in node) node.flow = true;
  });
  return document.toString({ indent: options.indent, indentSeq: options.indentSeq, collectionStyle: options.flowLevel === 1 ? "block" : "any" });
}

const written = fc.record({
  style: fc.constantFrom("json", "js-yaml", "yaml"),
  flowLevel: fc.integer({ min: 0, max: 4 }),
  indent: fc.integer({ min: 1, max: 4 }),
  indentSeq: fc.boolean(),
  comments: fc.boolean(),
});

function write(value: unknown, how: { style: string; flowLevel: number; indent: number; indentSeq: boolean; comments: boolean }): string {
  if (how.style === "json") return JSON.stringify(value, null, how.indent - 1);
  if (how.style === "js-yaml") return jsYaml.dump(value, { indent: Math.max(how.indent, 2), flowLevel: how.flowLevel - 1, noRefs: false });
  return yamlText(value, how);
}

describe("lexedNestingOffset", () => {
  it("gives the scanner's answer on single documents of every style, at every limit", () => {
    fc.assert(fc.property(values, written, (value, how) => {
      const document = write(value, how);
      const { scanner, lexer } = answers(document, 8);
      expect(lexer, document).toEqual(scanner);
    }), { numRuns: 2_000, seed });
  });

  it("gives the scanner's answer on streams of several documents", () => {
    fc.assert(fc.property(fc.array(fc.tuple(values, written, fc.constantFrom("---\n", "...\n---\n")), { minLength: 1, maxLength: 4 }), (documents) => {
      const stream = documents.map(([value, how, marker]) => `${marker}${write(value, how)}${how.style === "json" ? "\n" : ""}`).join("");
      const { scanner, lexer } = answers(stream, 8);
      expect(lexer, stream).toEqual(scanner);
    }), { numRuns: 1_000, seed });
  });

  it("gives the scanner's answer on documents nested around MAX_NESTING_DEPTH", () => {
    fc.assert(fc.property(deepValues, written, (value, how) => {
      const document = write(value, how);
      expect(lexedNestingOffset(document), document).toBe(excessiveNestingOffset(document));
    }), { numRuns: 300, seed });
  });

  it.each([
    { name: "a JSON document", text: '{"kind": "Route", "spec": {"authorizationScopes": ["a", "b"]}}' },
    { name: "a list's `key: value` entry", text: "[a: [b: c]]\n" },
    { name: "a flow collection as a key", text: "[a, [b]]: c\n" },
    { name: "compact sequences and mappings", text: "- - - - x\n- a: 1\n  b:\n  - c: [x]\n" },
    { name: "a zero-indented sequence as a mapping's value", text: "a:\n- x\n- y: 1\nb: 2\n" },
    { name: "explicit keys and values", text: "? - a\n: - b\n" },
    { name: "anchors, tags and aliases", text: "a: &x !!seq [1, [2]]\nb: *x\n&y c: - d\n" },
    { name: "block scalars", text: "a: |\n  [[[[ {{{{\n  - - - -\nb: >2-\n   [[[[\n  [[[[\nc: [x]\n" },
    { name: "quoted scalars over several lines", text: "a: \"x [[\n  ]] \\\" [[\"\nb: 'it''s [[\n  ['\n" },
    { name: "comments and plain scalars", text: "# [[[[\na: 1 # {{{{\nb: it's [[ a {{ \"x\nc: hello\n  [[[[ world\n" },
    { name: "a stream whose marker ends a flow collection", text: "[[[[a,\n---\n[[b]]\n...\n- - - c\n" },
    { name: "a byte order mark", text: "\ufeffa: [x]\n" },
    { name: "a directive", text: "%YAML 1.2\n---\na: [x]\n" },
  ])("gives the scanner's answer on $name", ({ text }) => {
    const { scanner, lexer } = answers(text, 6);
    expect(lexer).toEqual(scanner);
  });
});
