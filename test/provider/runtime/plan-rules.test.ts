import { describe, expect, it } from "vitest";
import { types } from "../../../src/provider/runtime/cty-type.js";
import { appliedBreaches, planBreaches, plannedCreate, readBreaches, replacedPaths } from "../../../src/provider/runtime/plan-rules.js";
import type { Schema } from "../../../src/provider/runtime/schema.js";
import { UNKNOWN } from "../../../src/provider/runtime/value.js";

const schema: Schema = {
  attributes: {
    id: { type: types.string, computed: true },
    name: { type: types.string, required: true, requiresReplace: true },
    size: { type: types.number, optional: true, computed: true },
    note: { type: types.string, optional: true },
    token: { type: types.string, optional: true, sensitive: true },
  },
  blocks: { rule: { nesting: "list", block: { attributes: { port: { type: types.number, required: true }, label: { type: types.string, computed: true } } } } },
};
const object = (values: Record<string, unknown>) => ({ id: null, name: null, size: null, note: null, token: null, rule: [], ...values }) as never;

describe("plannedCreate", () => {
  it("makes computed attributes the configuration leaves null unknown, in nested blocks too, and keeps the rest", () => {
    const config = object({ name: "a", size: 3, rule: [{ port: 1, label: null }] });
    expect(plannedCreate(schema, config, config)).toEqual(object({ id: UNKNOWN, name: "a", size: 3, rule: [{ port: 1, label: UNKNOWN }] }));
  });
});

describe("replacedPaths", () => {
  it("names requiresReplace attributes whose planned value differs from the prior one, an unknown included", () => {
    expect(replacedPaths(schema, object({ name: "a" }), object({ name: "b" }))).toEqual([["name"]]);
    expect(replacedPaths(schema, object({ name: "a" }), object({ name: UNKNOWN }))).toEqual([["name"]]);
    expect(replacedPaths(schema, object({ name: "a", note: "x" }), object({ name: "a", note: "y" }))).toEqual([]);
  });
});

describe("planBreaches", () => {
  it("accepts the configuration's values, computed values, and a prior value kept over the configuration", () => {
    expect(planBreaches(schema, object({ name: "a", note: "x" }), object({ name: "a", note: "X" }), object({ id: "1", name: "a", size: 9, note: "x" }))).toEqual([]);
  });

  it("refuses a non-computed attribute planned away from the configuration, hiding sensitive values", () => {
    expect(planBreaches(schema, null, object({ name: "a", token: "s" }), object({ name: "b", token: "t" }))).toEqual([
      { path: ["name"], problem: 'planned string "b" does not match the configuration\'s string "a"' },
      { path: ["token"], problem: "planned a sensitive value does not match the configuration's a sensitive value" },
    ]);
  });

  it("refuses a configured optional and computed attribute planned to something else", () => {
    expect(planBreaches(schema, null, object({ name: "a", size: 1 }), object({ name: "a", size: 2 }))).toEqual([{ path: ["size"], problem: "planned number 2 does not match the configuration's number 1" }]);
  });
});

describe("appliedBreaches", () => {
  it("refuses unknowns left after apply and values other than the planned ones, in nested blocks too", () => {
    const planned = object({ id: UNKNOWN, name: "a", rule: [{ port: 1, label: UNKNOWN }] });
    expect(appliedBreaches(schema, planned, object({ id: "1", name: "a", rule: [{ port: 1, label: "x" }] }))).toEqual([]);
    expect(appliedBreaches(schema, planned, object({ id: UNKNOWN, name: "b", rule: [{ port: 2, label: "x" }] }))).toEqual([
      { path: ["id"], problem: "is still unknown after apply: expected a known value" },
      { path: ["name"], problem: 'was planned as string "a" but apply returned string "b"' },
      { path: ["rule", { index: 0 }, "port"], problem: "was planned as number 1 but apply returned number 2" },
    ]);
  });
});

describe("readBreaches", () => {
  it("refuses a data source's state that changes a configured value", () => {
    expect(readBreaches(schema, object({ name: "a" }), object({ id: "1", name: "b" }))).toEqual([{ path: ["name"], problem: 'was read as string "b" but the configuration sets string "a"' }]);
  });
});
