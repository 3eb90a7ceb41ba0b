import { describe, expect, it } from "vitest";
import { formatPath, pathToProtocol, valueAtPath, withValueAtPath } from "../../../src/provider/runtime/attribute-path.js";

describe("attribute paths", () => {
  const value = { rule: [{ name: "a" }], tags: { env: "dev" } };

  it("formats a path as terraform writes it", () => {
    expect(formatPath(["rule", { index: 0 }, "name"])).toBe("rule[0].name");
    expect(formatPath(["tags", { key: "env" }])).toBe('tags["env"]');
  });

  it("gives the protocol one selector per step", () => {
    expect(pathToProtocol(["tags", { key: "env" }, { index: 2 }])).toEqual({ steps: [{ attribute_name: "tags" }, { element_key_string: "env" }, { element_key_int: 2 }] });
  });

  it("reads a value at a path, and undefined where the path leads nowhere", () => {
    expect(valueAtPath(value, ["rule", { index: 0 }, "name"])).toBe("a");
    expect(valueAtPath(value, ["tags", { key: "env" }])).toBe("dev");
    expect(valueAtPath(value, ["rule", { index: 3 }, "name"])).toBeUndefined();
  });

  it("sets a value at a path in a copy, leaving the original as it was", () => {
    const changed = withValueAtPath(value, ["rule", { index: 0 }, "name"], "b");
    expect(changed).toEqual({ rule: [{ name: "b" }], tags: { env: "dev" } });
    expect(value.rule[0]!.name).toBe("a");
    expect(changed.tags).toBe(value.tags);
  });

  it("refuses a path through something that is not an object or a list", () => {
    expect(() => withValueAtPath(value, ["tags", { key: "env" }, "x"], 1)).toThrow('cannot set tags["env"].x: tags["env"] is string "dev", expected an object or map');
  });
});
