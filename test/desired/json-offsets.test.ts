import { describe, expect, it } from "vitest";
import { offsetOfJsonPath, valueEnd } from "../../src/desired/json-offsets.js";

/** Places of values in a JSON text, found without parsing it: strings with brackets, quotes and escapes are skipped whole. */

const TEXT = '{"a": "x]}\\"{", "k\\u0065y": [1, {"b": [true, null]}, "\\\\"], "c": -1.5e3}';

describe("offsetOfJsonPath", () => {
  it.each([
    [[], 0],
    [["a"], TEXT.indexOf('"x'),],
    [["key"], TEXT.indexOf("[1")],
    [["key", 1, "b", 1], TEXT.indexOf("null")],
    [["key", 2], TEXT.indexOf('"\\\\"')],
    [["c"], TEXT.indexOf("-1.5")],
    // absent: the nearest existing parent
    [["key", 7], TEXT.indexOf("[1")],
    [["nothing"], 0],
  ] as const)("%j", (path, offset) => {
    expect(offsetOfJsonPath(TEXT, path)).toBe(offset);
  });

  it("ends a value where JSON.parse would", () => {
    const start = TEXT.indexOf("[1");
    expect(JSON.parse(TEXT.slice(start, valueEnd(TEXT, start)))).toEqual([1, { b: [true, null] }, "\\"]);
  });
});
