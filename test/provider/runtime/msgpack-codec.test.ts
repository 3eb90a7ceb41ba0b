import { describe, expect, it } from "vitest";
import { types, type CtyType } from "../../../src/provider/runtime/cty-type.js";
import { decodeMsgpack, encodeMsgpack } from "../../../src/provider/runtime/msgpack-codec.js";
import { TypedValue, UNKNOWN, type Value } from "../../../src/provider/runtime/value.js";

/** Each case: a value of a type and its bytes as go-cty's msgpack.Marshal writes them. */
const CASES: ReadonlyArray<{ name: string; type: CtyType; value: Value; hex: string }> = [
  { name: "null", type: types.string, value: null, hex: "c0" },
  { name: "unknown", type: types.list(types.string), value: UNKNOWN, hex: "d40000" },
  { name: "a string", type: types.string, value: "hé", hex: "a368c3a9" },
  { name: "a small integer", type: types.number, value: 7, hex: "07" },
  { name: "a negative integer", type: types.number, value: -200, hex: "d1ff38" },
  { name: "a large integer", type: types.number, value: 2 ** 40, hex: "cf0000010000000000" },
  { name: "a fraction, as float64", type: types.number, value: 0.5, hex: "cb3fe0000000000000" },
  { name: "a bool", type: types.bool, value: false, hex: "c2" },
  { name: "an object, attributes sorted, a missing one null", type: types.object({ b: types.number, a: types.string }), value: { b: 1 }, hex: "82a161c0a16201" },
  { name: "a map with a null element", type: types.map(types.bool), value: { z: null, y: true }, hex: "82a179c3a17ac0" },
  { name: "a list of objects", type: types.list(types.object({ n: types.number })), value: [{ n: 1 }, { n: UNKNOWN }], hex: "9281a16e0181a16ed40000" },
  { name: "a set", type: types.set(types.string), value: ["b", "a"], hex: "92a162a161" },
  { name: "a tuple", type: types.tuple([types.string, types.bool]), value: ["x", true], hex: "92a178c3" },
  { name: "a dynamic value with its type", type: types.dynamic, value: new TypedValue(types.set(types.number), [1]), hex: "92c410" + Buffer.from('["set","number"]').toString("hex") + "9101" },
];

describe("encodeMsgpack and decodeMsgpack", () => {
  for (const { name, type, value, hex } of CASES) {
    it(`encode ${name} as cty does`, () => {
      expect(Buffer.from(encodeMsgpack(value, type)).toString("hex")).toBe(hex);
    });
  }

  it("decodes integers, float64 and decimal strings as numbers", () => {
    expect(decodeMsgpack(Buffer.from("cd012c", "hex"), types.number)).toBe(300);
    expect(decodeMsgpack(Buffer.from("cb4004000000000000", "hex"), types.number)).toBe(2.5);
    expect(decodeMsgpack(Buffer.from("a4322e3235", "hex"), types.number)).toBe(2.25);
    expect(decodeMsgpack(Buffer.from("ca3f800000", "hex"), types.number)).toBe(1);
  });

  it("decodes an unknown with refinements (extension 12) as the plain unknown", () => {
    expect(decodeMsgpack(Buffer.from("c7030c8101c2", "hex"), types.string)).toBe(UNKNOWN);
  });

  it("keeps a map's null element apart from an absent key", () => {
    expect(decodeMsgpack(Buffer.from("81a161c0", "hex"), types.map(types.string))).toEqual({ a: null });
    expect(decodeMsgpack(Buffer.from("80", "hex"), types.map(types.string))).toEqual({});
  });

  it("gives a plain value in a dynamic slot the type it implies", () => {
    const bytes = encodeMsgpack({ a: ["x", 1] }, types.dynamic);
    expect(decodeMsgpack(bytes, types.dynamic)).toEqual(new TypedValue(types.object({ a: types.tuple([types.string, types.number]) }), { a: ["x", 1] }));
  });

  it("rejects a value of the wrong type, naming its path", () => {
    expect(() => encodeMsgpack({ items: [{ n: "one" }] }, types.object({ items: types.list(types.object({ n: types.number })) }))).toThrow('items[0].n: received string "one", expected a number');
  });

  it("rejects an attribute the object type does not have", () => {
    expect(() => encodeMsgpack({ nmae: "x" }, types.object({ name: types.string }))).toThrow("nmae: is not an attribute of the schema: expected one of name");
  });

  it("rejects bytes that are not MessagePack", () => {
    expect(() => decodeMsgpack(Buffer.from("c1", "hex"), types.string)).toThrow(/received 1 bytes that are not MessagePack/);
  });

  it("rejects a decimal string that is not a number", () => {
    expect(() => decodeMsgpack(Buffer.from("a3616263", "hex"), types.number)).toThrow('received string "abc", expected a number');
  });
});
