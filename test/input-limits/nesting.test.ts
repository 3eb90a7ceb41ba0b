import { createRequire } from "node:module";
import fc from "fast-check";
import type * as JsYaml from "js-yaml";
import { isCollection, isPair, parseAllDocuments, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH, NestingError, excessiveNestingOffset, parseJsonWithinDepth } from "../../src/input-limits/nesting.js";

/**
 * The nesting scan (issue 21) counts how deeply a JSON or YAML text nests lists and mappings
 * without parsing it. Table cases pin what it counts and what it reads as text (quoted and block
 * scalars, comments, plain scalars with brackets); the properties compare it with the depth of the
 * value the parsers build, over random values written in every style the yaml library, js-yaml and
 * JSON.stringify write: never less, and exactly that for ordinary strings.
 */

const jsYaml = createRequire(import.meta.url)("js-yaml") as typeof JsYaml;
const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

/** The depth the scan finds: the smallest limit it lets the text through under. */
function scannedDepth(text: string): number {
  for (let limit = 0; limit < 200; limit += 1) if (excessiveNestingOffset(text, 0, text.length, limit) === undefined) return limit;
  return Number.POSITIVE_INFINITY;
}

/** How deeply a value nests lists and mappings (a scalar: 0). */
function valueDepth(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, valueDepth(child));
  return deepest + 1;
}

/** How deeply the yaml library's nodes nest collections (a collection as a key counts, which toJS would turn into a string). */
function nodeDepth(node: unknown): number {
  if (isPair(node)) return Math.max(nodeDepth(node.key), nodeDepth(node.value));
  if (!isCollection(node)) return 0;
  return 1 + Math.max(0, ...node.items.map((item) => nodeDepth(item)));
}

/** The depth of what the yaml library reads from a text (every document). */
function parsedDepth(text: string): number {
  return Math.max(0, ...parseAllDocuments(text).map((document) => {
    expect(document.errors, text).toEqual([]);
    return nodeDepth(document.contents);
  }));
}

describe("excessiveNestingOffset", () => {
  it.each([
    { name: "a JSON document", text: '{"kind": "Route", "spec": {"authorizationScopes": ["a", "b"]}}', depth: 3 },
    { name: "JSON strings holding brackets, quotes and escapes", text: '["[[[", "\\"]]]\\\\", {"a": "{{"}]', depth: 2 },
    { name: "a YAML flow mapping in a block mapping", text: "kind: Api\nspec: {prune: true, x: [1, [2]]}\n", depth: 4 },
    { name: "a list's `key: value` entry (a mapping of one pair)", text: "[a: [b: c]]\n", depth: 4 },
    { name: "a flow collection as a key", text: "[a, [b]]: c\n", depth: 3 },
    { name: "block mappings by indentation", text: "a:\n  b:\n    c:\n      d: 1\n", depth: 4 },
    { name: "compact sequences on one line", text: "- - - - x\n", depth: 4 },
    { name: "a compact mapping in a sequence", text: "- a: 1\n  b:\n  - c: [x]\n", depth: 5 },
    { name: "a zero-indented sequence as a mapping's value", text: "a:\n- x\n- y: 1\nb: 2\n", depth: 3 },
    { name: "explicit keys and values", text: "? - a\n: - b\n", depth: 2 },
    { name: "anchors, tags and aliases before collections", text: "a: &x !!seq [1, [2]]\nb: *x\n", depth: 3 },
    { name: "brackets in a block scalar", text: "a: |\n  [[[[ {{{{\n  - - - -\nb: [x]\n", depth: 2 },
    { name: "brackets in a block scalar with an indentation indicator", text: "a: >2-\n   [[[[\n  [[[[\nb: x\n", depth: 1 },
    { name: "brackets in a quoted scalar over several lines", text: "a: \"x [[\n  ]] \\\" [[\"\nb: 'it''s [[\n  ['\n", depth: 1 },
    { name: "brackets in comments", text: "# [[[[\na: 1 # {{{{\nb: [x] # [[[[\n", depth: 2 },
    { name: "brackets and quotes inside plain scalars", text: "a: it's [[ a {{ \"x\nb: x]]]]\n", depth: 1 },
    { name: "brackets on a plain scalar's next line", text: "a: hello\n  [[[[ world\n", depth: 1 },
    { name: "documents one after another (each counted alone)", text: "--- [[1]]\n--- {a: [1]}\n...\n- x\n", depth: 2 },
    { name: "a byte order mark", text: "\ufeffa: [x]\n", depth: 2 },
  ])("counts $name as $depth levels", ({ text, depth }) => {
    expect(scannedDepth(text)).toBe(depth);
    expect(parsedDepth(text)).toBe(depth);
  });

  it.each([
    { name: "JSON lists", text: `${"[".repeat(100_000)}${"]".repeat(100_000)}`, offset: MAX_NESTING_DEPTH },
    { name: "JSON objects", text: `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`, offset: MAX_NESTING_DEPTH * 5 },
    { name: "YAML flow mappings", text: `${"{a: ".repeat(10_000)}1${"}".repeat(10_000)}\n`, offset: MAX_NESTING_DEPTH * 4 },
    { name: "YAML compact sequences", text: `${"- ".repeat(100_000)}x\n`, offset: MAX_NESTING_DEPTH * 2 },
    { name: "YAML explicit keys", text: `${"? ".repeat(10_000)}x\n`, offset: MAX_NESTING_DEPTH * 2 },
    { name: "YAML block mappings by indentation", text: Array.from({ length: 1_000 }, (_, i) => `${" ".repeat(i)}a:\n`).join(""), offset: (MAX_NESTING_DEPTH * (MAX_NESTING_DEPTH + 1)) / 2 + MAX_NESTING_DEPTH * 3 },
  ])("finds where $name open one level too many", ({ text, offset }) => {
    expect(excessiveNestingOffset(text)).toBe(offset);
  });

  it("counts each document of a stream alone: a marker ends even a flow collection left open", () => {
    const text = "[[[[a,\n---\n[[b]]\n...\n- - - c\n";
    expect(excessiveNestingOffset(text, 0, text.length, 4)).toBeUndefined();
    expect(excessiveNestingOffset(text, 0, text.length, 3)).toBe(3);
    expect(excessiveNestingOffset(text, text.indexOf("---"), text.length, 2)).toBe(text.indexOf("- c"));
  });

  it.each([
    { name: "lines that hold no key (2,000,000 list items)", text: "- x\n".repeat(2_000_000) },
    { name: "a quoted scalar over 1,000,000 lines", text: `a: "x\n${"  text line\n".repeat(1_000_000)}"\n` },
    { name: "a flow list's quoted scalar over 1,000,000 lines", text: `[ 'x\n${"  text line\n".repeat(1_000_000)}' ]\n` },
  ])("scans $name in one pass (a search to the next colon or quote from every line was quadratic)", ({ text }) => {
    // generous: one pass takes well under a second; a search per line would take hours
    const started = performance.now();
    expect(excessiveNestingOffset(text)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it("refuses a JSON text nested too deeply, naming line and column, before JSON.parse sees it", () => {
    const text = `{\n  "a": ${"[".repeat(MAX_NESTING_DEPTH)}${"]".repeat(MAX_NESTING_DEPTH)}\n}`;
    expect(() => parseJsonWithinDepth(text)).toThrow(new NestingError(2, 8 + MAX_NESTING_DEPTH - 1));
    expect(() => parseJsonWithinDepth(text)).toThrow(`line 2, column ${8 + MAX_NESTING_DEPTH - 1}: nested too deeply: a list or mapping opens at level ${MAX_NESTING_DEPTH + 1}; expected lists and mappings nested at most ${MAX_NESTING_DEPTH} levels deep`);
    expect(parseJsonWithinDepth(`{"a": ${"[".repeat(MAX_NESTING_DEPTH - 1)}${"]".repeat(MAX_NESTING_DEPTH - 1)}}`)).toBeDefined();
  });

  /** Values with strings that look like YAML (indicators, brackets, quotes, comments, markers). */
  const hostileString = fc.oneof(
    fc.string(),
    fc.constantFrom("[", "]", "{", "}", "- x", "a: b", "#", " #c", "'", '"', "[[[", "]]]", "|", ">", "- - ", "? ", "&a", "*a", "!t", ": ", "x\ny", "a\n  - b", "---", "...", "%YAML", "\t", "\\", "\ufeff"),
    fc.stringMatching(/^[[\]{}'"#:\- \n|>,?&*!a\\]{0,12}$/),
  );
  /** Values with ordinary strings: words, spaces and punctuation inside them. */
  const ordinaryString = fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9 ./@+_()[\]{}'"#-]{0,10}[A-Za-z0-9])?$/);
  const values = (text: fc.Arbitrary<string>) => fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(text, tie("value"), { maxKeys: 4 })),
  })).value;
  const written = (value: unknown, style: string, level: number, indent: number, indentSeq: boolean): string => {
    if (style === "json") return JSON.stringify(value, null, indent);
    if (style === "js-yaml") return jsYaml.dump(value, { indent: Math.max(indent, 2), flowLevel: level - 1 });
    return stringify(value, { indent: Math.max(indent, 1), indentSeq, collectionStyle: level === 0 ? "flow" : level === 1 ? "block" : "any" });
  };
  const styles = [fc.constantFrom("json", "js-yaml", "yaml"), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 4 }), fc.boolean()] as const;

  it("never counts less than the parsed value's depth, whatever its strings hold", () => {
    fc.assert(fc.property(values(hostileString), ...styles, (value, style, level, indent, indentSeq) => {
      const text = written(value, style, level, indent, indentSeq);
      expect(scannedDepth(text), text).toBeGreaterThanOrEqual(valueDepth(value));
    }), { numRuns: 3_000, seed });
  });

  it("counts exactly the parsed value's depth for ordinary strings", () => {
    fc.assert(fc.property(values(ordinaryString), ...styles, (value, style, level, indent, indentSeq) => {
      const text = written(value, style, level, indent, indentSeq);
      expect(scannedDepth(text), text).toBe(valueDepth(value));
    }), { numRuns: 3_000, seed });
  });
});
