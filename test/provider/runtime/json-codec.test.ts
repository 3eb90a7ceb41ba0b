import { describe, expect, it } from "vitest";
import { types } from "../../../src/provider/runtime/cty-type.js";
import { decodeJson } from "../../../src/provider/runtime/json-codec.js";
import { TypedValue } from "../../../src/provider/runtime/value.js";

describe("decodeJson", () => {
  it("reads state as cty writes it: missing attributes null, attributes the schema dropped ignored, dynamic values with their type", () => {
    const type = types.object({ name: types.string, tags: types.map(types.string), extra: types.dynamic, size: types.number });
    expect(decodeJson('{"name":"a","gone":1,"extra":{"value":["x"],"type":["list","string"]},"size":"1.5"}', type)).toEqual({
      name: "a",
      tags: null,
      extra: new TypedValue(types.list(types.string), ["x"]),
      size: 1.5,
    });
  });

  it("rejects a value of the wrong type, naming its path", () => {
    expect(() => decodeJson('{"tags":{"a":1}}', types.object({ tags: types.map(types.string) }))).toThrow('tags["a"]: received number 1, expected a string');
  });

  it("rejects text that is not JSON", () => {
    expect(() => decodeJson("{", types.string)).toThrow(/received text that is not JSON/);
  });
});
