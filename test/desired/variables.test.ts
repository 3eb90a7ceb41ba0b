import { describe, expect, it } from "vitest";
import { MAX_NESTING_DEPTH } from "../../src/input-limits/nesting.js";
import { SubstitutionBudget, substituteVariables } from "../../src/desired/substitute-variables.js";
import { escapeDocumentReferences, parseTemplate, scanReferences } from "../../src/desired/variable-references.js";
import type { Variables, VariableValue } from "../../src/desired/variable-set.js";

/**
 * The grammar of `${var.…}` and the substitution of a document's values
 * (docs/manual/desired-state.md, "Environments and variables"), table-driven; the CLI tests
 * (test/e2e/cli-environments.test.ts, cli-variables-refused.test.ts, cli-render.test.ts) run the
 * same through the loader.
 */

function variables(entries: Record<string, unknown>, text: ReadonlyArray<string> = []): Variables {
  const values = new Map<string, VariableValue>(Object.entries(entries).map(([name, value]) =>
    [name, { name, value, text: text.includes(name), from: text.includes(name) ? "--var" : "values.yaml" }]));
  return { values, files: ["values.yaml"], flagged: values };
}

describe("parseTemplate", () => {
  it.each([
    { text: "plain", parts: undefined },
    { text: "${request.method} ${stageVariables.host}", parts: undefined },
    { text: "${var.a}", parts: [{ name: "a", written: "${var.a}" }] },
    { text: "https://${var.host}/x", parts: ["https://", { name: "host", written: "${var.host}" }, "/x"] },
    { text: "${var.a:-fallback text}", parts: [{ name: "a", written: "${var.a:-fallback text}", fallback: "fallback text" }] },
    { text: "${var._A1:?say why}", parts: [{ name: "_A1", written: "${var._A1:?say why}", required: "say why" }] },
    { text: "${var.a:-}", parts: [{ name: "a", written: "${var.a:-}", fallback: "" }] },
    { text: "$${var.a}", parts: ["${var.a}"] },
    { text: "x $${var.a} ${var.b}", parts: ["x ${var.a} ", { name: "b", written: "${var.b}" }] },
    { text: "$$${var.a}", parts: ["$${var.a}"] },
  ])("reads $text", ({ text, parts }) => {
    expect(parseTemplate(text)?.parts).toEqual(parts);
  });

  it.each([
    { text: "${var.", malformed: '"${var." is not a valid variable reference' },
    { text: "${var.1x}", malformed: '"${var.1x}" is not a valid variable reference' },
    { text: "${var.a-b}", malformed: '"${var.a-b}" is not a valid variable reference' },
    { text: "${var.a:=b}", malformed: '"${var.a:=b}" is not a valid variable reference' },
    { text: "${var.a:-${var.b}}", malformed: "a default or message is literal text and may not hold ${ (no nesting)" },
  ])("refuses $text", ({ text, malformed }) => {
    const parsed = parseTemplate(text);
    expect(parsed?.parts).toBeUndefined();
    expect(parsed?.malformed?.join("\n")).toContain(malformed);
  });

  it("finds the names a text refers to, escapes left out, where it may hold references, and escapes what it writes back", () => {
    const used = new Set<string>();
    const text = "a: ${var.one}\n---\nb: $${var.two} ${var.three:-x} ${request.path}\n---\nc: plain\n---\nd: \"\\x24{var.four}\"\n";
    const mayHold = scanReferences(text, used);
    expect([...used].sort()).toEqual(["one", "three"]);
    const regions = text.split("---\n").reduce<Array<[number, number]>>((all, part) => [...all, [all.at(-1)?.[1] ?? 0, (all.at(-1)?.[1] ?? 0) + part.length + 4]], []);
    expect(regions.map(([start, end]) => mayHold(start, end))).toEqual([true, true, false, true]);
    expect(escapeDocumentReferences({ kind: "Route", spec: { a: "${var.x} and $${var.y}", b: ["${var.z}"], c: 1 } }))
      .toEqual({ kind: "Route", spec: { a: "$${var.x} and $$${var.y}", b: ["$${var.z}"], c: 1 } });
  });
});

describe("substituteVariables", () => {
  const given = variables({ timeout: 15000, scopes: ["a", "b"], host: "dev.example", flag: true, empty: "", none: null, nested: "${var.host}", text: "15000" }, ["text"]);

  it.each([
    { name: "a number whole", value: "${var.timeout}", expected: 15000 },
    { name: "a list whole", value: "${var.scopes}", expected: ["a", "b"] },
    { name: "a boolean in text", value: "on: ${var.flag}", expected: "on: true" },
    { name: "text inside a string", value: "https://${var.host}/x", expected: "https://dev.example/x" },
    { name: "a value holding ${var.…}, never expanded", value: "${var.nested}", expected: "${var.host}" },
    { name: "the default when unset", value: "${var.missing:-7}", expected: "7" },
    { name: "the default when empty", value: "${var.empty:-7}", expected: "7" },
    { name: "the default when null", value: "${var.none:-7}", expected: "7" },
    { name: "an empty value without a default", value: "[${var.empty}]", expected: "[]" },
    { name: "null whole", value: "${var.none}", expected: null },
    { name: "the services' own ${…}", value: "${request.method} ${stageVariables.host}", expected: "${request.method} ${stageVariables.host}" },
    { name: "an escape", value: "$${var.timeout}", expected: "${var.timeout}" },
    { name: "text given on the command line, whole", value: "${var.text}", expected: "15000" },
  ])("substitutes $name", ({ value, expected }) => {
    const result = substituteVariables({ kind: "Route", spec: { field: value } }, given, new SubstitutionBudget());
    expect(result.problems).toEqual([]);
    expect((result.value as { spec: { field: unknown } }).spec.field).toEqual(expected);
  });

  it("offers text given on the command line typed, and leaves kind, keys and documents without references alone", () => {
    const document = { kind: "${var.kind}", spec: { "${var.key}": "${var.text}", other: "x" } };
    const result = substituteVariables(document, given, new SubstitutionBudget());
    expect(result.value).toEqual({ kind: "${var.kind}", spec: { "${var.key}": "15000", other: "x" } });
    expect(result.textual).toEqual([{ path: ["spec", "${var.key}"], typed: 15000 }]);
    const untouched = { kind: "Route", spec: { a: ["x", { b: "y" }] } };
    expect(substituteVariables(untouched, given, new SubstitutionBudget()).value).toBe(untouched);
  });

  it.each([
    { name: "an unset variable", value: "${var.missing}", message: "variable missing is not set and has no default" },
    { name: "an unset required variable", value: "${var.missing:?name the region}", message: "variable missing is not set: name the region" },
    { name: "an empty required variable", value: "${var.empty:?say it}", message: "variable empty is empty: say it" },
    { name: "a list inside text", value: "x ${var.scopes}", message: "variable scopes is a list (from values.yaml), which cannot be part of a text" },
    { name: "null inside text", value: "x ${var.none}", message: "variable none is null (from values.yaml), which cannot be part of a text" },
  ])("refuses $name at its field", ({ value, message }) => {
    const result = substituteVariables({ kind: "Route", spec: { list: [value] } }, given, new SubstitutionBudget());
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]!.path).toEqual(["spec", "list", 0]);
    expect(result.problems[0]!.message).toContain(message);
  });

  it("refuses a value that would nest past the limit where it is put, and charges the file's budget once", () => {
    let deep: unknown = "leaf";
    for (let level = 0; level < MAX_NESTING_DEPTH - 2; level += 1) deep = [deep];
    const nestedValue = variables({ deep });
    const tooDeep = substituteVariables({ kind: "Route", spec: { a: { b: "${var.deep}" } } }, nestedValue, new SubstitutionBudget());
    expect(tooDeep.problems.map((problem) => problem.message).join()).toContain("nested too deeply once variable deep is substituted");
    expect(substituteVariables({ kind: "Route", spec: "${var.deep}" }, nestedValue, new SubstitutionBudget()).problems).toEqual([]);

    const budget = new SubstitutionBudget();
    budget.remaining = 10;
    const spent = substituteVariables({ kind: "Route", spec: { a: "${var.host}", b: "${var.host}", c: "${var.host}" } }, given, budget);
    expect(spent.problems).toHaveLength(1);
    expect(spent.problems[0]!.message).toContain("substituting variables adds more than 16 MiB to this file's documents");
  });
});
