import { describe, expect, it } from "vitest";
import { types } from "../../../src/provider/runtime/cty-type.js";
import { appliedBreaches, planBreaches, plannedChange, readBreaches, replacedPaths } from "../../../src/provider/runtime/plan-rules.js";
import { schemaProblems, type Schema } from "../../../src/provider/runtime/schema.js";
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

describe("plannedChange", () => {
  it("on create makes computed attributes the configuration leaves null unknown, in nested blocks too, and keeps the rest", () => {
    const config = object({ name: "a", size: 3, rule: [{ port: 1, label: null }] });
    expect(plannedChange(schema, null, config, config)).toEqual(object({ id: UNKNOWN, name: "a", size: 3, rule: [{ port: 1, label: UNKNOWN }] }));
  });

  const modified: Schema = {
    attributes: {
      id: { type: types.string, computed: true, useStateForUnknown: true },
      name: { type: types.string, required: true },
      status: { type: types.string, computed: true },
      tier: { type: types.string, optional: true, computed: true, default: "basic" },
    },
  };
  const values = (fields: Record<string, unknown>): Record<string, never> => ({ id: null, name: null, status: null, tier: null, ...fields }) as never;

  it("on an update that changes something makes computed attributes unknown, keeps useStateForUnknown ones, and plans defaults", () => {
    const prior = values({ id: "x1", name: "a", status: "ready", tier: "gold" });
    const config = values({ name: "b" });
    expect(plannedChange(modified, prior, { ...prior, name: "b" }, config)).toEqual(values({ id: "x1", name: "b", status: UNKNOWN, tier: "basic" }));
  });

  it("on an update that changes nothing plans the prior state, and a default the configuration leaves out counts as a change from another value", () => {
    const prior = values({ id: "x1", name: "a", status: "ready", tier: "basic" });
    expect(plannedChange(modified, prior, prior, values({ name: "a" }))).toEqual(prior);
    const gold = values({ id: "x1", name: "a", status: "ready", tier: "gold" });
    expect(plannedChange(modified, gold, gold, values({ name: "a" }))).toEqual(values({ id: "x1", name: "a", status: UNKNOWN, tier: "basic" }));
  });

  it("on create plans defaults, keeps a configured value over the default, and leaves a useStateForUnknown attribute unknown", () => {
    expect(plannedChange(modified, null, values({ name: "a" }), values({ name: "a" }))).toEqual(values({ id: UNKNOWN, name: "a", status: UNKNOWN, tier: "basic" }));
    expect(plannedChange(modified, null, values({ name: "a", tier: "gold" }), values({ name: "a", tier: "gold" }))).toEqual(values({ id: UNKNOWN, name: "a", status: UNKNOWN, tier: "gold" }));
  });
});

describe("schemaProblems of plan modifiers", () => {
  it("refuses a default or useStateForUnknown on an attribute that is not computed, or outside a resource", () => {
    const schemaWith = (attribute: object): Schema => ({ attributes: { tier: { type: types.string, ...attribute } } });
    expect(schemaProblems(schemaWith({ optional: true, default: "basic" }), "resource toy_x", "resource")).toEqual([
      'resource toy_x: attribute "tier" has default but is not computed: expected computed (optional and computed for a default), as only the provider may plan a value the configuration does not set',
    ]);
    expect(schemaProblems(schemaWith({ computed: true, useStateForUnknown: true }), "data source toy_y", "data source")).toEqual([
      'data source toy_y: attribute "tier" has useStateForUnknown, which only a resource\'s plan uses: expected none in a data source',
    ]);
    expect(schemaProblems(schemaWith({ optional: true, computed: true, default: "basic", useStateForUnknown: true }), "resource toy_x", "resource")).toEqual([]);
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
