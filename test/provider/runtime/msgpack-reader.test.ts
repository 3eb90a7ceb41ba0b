import { encode } from "@msgpack/msgpack";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { types, typeToJson, type CtyType } from "../../../src/provider/runtime/cty-type.js";
import { decodeGeneral, decodeMsgpack, encodeMsgpack } from "../../../src/provider/runtime/msgpack-codec.js";
import { readTypedMsgpack } from "../../../src/provider/runtime/msgpack-reader.js";
import { TypedValue, UNKNOWN, type Value } from "../../../src/provider/runtime/value.js";

const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

/** A value written out with everything the reader and the general way could differ in: key order, -0, unknowns, typed values. */
function shape(value: Value | undefined): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (value === UNKNOWN) return "unknown";
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  if (value instanceof TypedValue) return `typed(${JSON.stringify(typeToJson(value.type))}, ${shape(value.value)})`;
  if (Array.isArray(value)) return `[${(value as ReadonlyArray<Value>).map(shape).join(", ")}]`;
  const record = value as { readonly [key: string]: Value };
  if (Object.getPrototypeOf(record) !== Object.prototype) return "object with another prototype";
  return `{${Object.keys(record)
    .map((key) => `${JSON.stringify(key)}: ${shape(record[key])}`)
    .join(", ")}}`;
}

/** What decoding `bytes` the general way gives: the value's shape, or the error's message. */
function general(bytes: Uint8Array, type: CtyType): string {
  try {
    return shape(decodeGeneral(bytes, type));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

function decoded(bytes: Uint8Array, type: CtyType): string {
  try {
    return shape(decodeMsgpack(bytes, type));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

const NAMES = ["a", "b", "id", "name", "é", "zz", "k1", "10", "2"];

const ctyType: fc.Arbitrary<CtyType> = fc.letrec<{ type: CtyType }>((tie) => ({
  type: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<CtyType>(types.string, types.number, types.bool, types.dynamic),
    tie("type").map((element) => types.list(element)),
    tie("type").map((element) => types.set(element)),
    tie("type").map((element) => types.map(element)),
    fc.dictionary(fc.constantFrom(...NAMES), tie("type"), { maxKeys: 5 }).map((attributes) => types.object(attributes)),
    fc.array(tie("type"), { maxLength: 3 }).map((elements) => types.tuple(elements)),
  ),
})).type;

const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary", maxLength: 8 }), fc.string({ minLength: 32, maxLength: 300 }));
const number = fc.oneof(fc.integer(), fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -(2 ** 31), -(2 ** 31) - 1));
const concrete: CtyType[] = [types.string, types.number, types.bool, types.list(types.string), types.object({ a: types.number })];

/** A value of `type`: null and unknown anywhere, every element and attribute (or left out) otherwise. */
function valueOf(type: CtyType, depth = 0): fc.Arbitrary<Value> {
  const made = ((): fc.Arbitrary<Value> => {
    switch (type.kind) {
      case "string":
        return text;
      case "number":
        return number;
      case "bool":
        return fc.boolean();
      case "dynamic":
        return fc.constantFrom(...concrete).chain((inner) => valueOf(inner, depth + 1).map((value) => new TypedValue(inner, value)));
      case "list":
      case "set":
        return fc.array(valueOf(type.element, depth + 1), { maxLength: depth > 2 ? 1 : 4 });
      case "map":
        return fc.dictionary(fc.oneof(text, fc.constantFrom(...NAMES)), valueOf(type.element, depth + 1), { maxKeys: 4 });
      case "object":
        // an attribute left out, not one set to undefined: a record without required keys
        return fc.record(Object.fromEntries(Object.entries(type.attributes).map(([name, attribute]) => [name, valueOf(attribute, depth + 1)])), { requiredKeys: [] }).map((object) => object as Value);
      case "tuple":
        return fc.tuple(...type.elements.map((element) => valueOf(element, depth + 1)));
    }
  })();
  return fc.oneof({ weight: 1, arbitrary: fc.constantFrom<Value>(null, UNKNOWN) }, { weight: 5, arbitrary: made });
}

const typedValue = ctyType.chain((type) => valueOf(type).map((value) => ({ type, value })));

/**
 * Whether the reader must read `value`'s bytes itself: all but what it leaves to the general way
 * on purpose (strings that start with a byte order mark or hold a lone surrogate).
 */
function plain(value: Value): boolean {
  if (typeof value === "string") return !value.startsWith("\uFEFF") && Buffer.from(value, "utf8").toString("utf8") === value;
  if (value instanceof TypedValue) return plain(value.value);
  if (Array.isArray(value)) return (value as ReadonlyArray<Value>).every(plain);
  if (value !== null && typeof value === "object" && value !== UNKNOWN) return Object.entries(value).every(([key, element]) => plain(key) && plain(element));
  return true;
}

describe("readTypedMsgpack", () => {
  it("reads what cty writes as the general way decodes it, and leaves nothing plain to it", () => {
    let read = 0;
    fc.assert(
      fc.property(typedValue, ({ type, value }) => {
        const bytes = encodeMsgpack(value, type);
        const fast = readTypedMsgpack(bytes, type);
        if (plain(value)) expect(fast, `${shape(value)} as ${JSON.stringify(typeToJson(type))}`).not.toBeUndefined();
        if (fast === undefined) return;
        read++;
        expect(shape(fast)).toBe(general(bytes, type));
      }),
      { numRuns: 3_000, seed },
    );
    expect(read).toBeGreaterThan(2_000);
  });

  it("answers for changed, cut and lengthened bytes either what the general way does or nothing", () => {
    const changed = typedValue.chain(({ type, value }) => {
      const bytes = Buffer.from(encodeMsgpack(value, type));
      return fc
        .oneof(
          fc.tuple(fc.nat(bytes.length - 1), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at + 1)])),
          fc.nat(bytes.length - 1).map((length) => bytes.subarray(0, length)),
          fc.uint8Array({ minLength: 1, maxLength: 3 }).map((extra) => Buffer.concat([bytes, extra])),
        )
        .map((changedBytes) => ({ type, bytes: changedBytes }));
    });
    fc.assert(
      fc.property(changed, ({ type, bytes }) => {
        const fast = readTypedMsgpack(bytes, type);
        if (fast !== undefined) expect(shape(fast)).toBe(general(bytes, type));
        expect(decoded(bytes, type)).toBe(general(bytes, type));
      }),
      { numRuns: 3_000, seed },
    );
  });

  it("answers for any MessagePack either what the general way does or nothing", () => {
    const anyValue = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constantFrom(null, true, false, 0, -1, 2 ** 40, 1.5, "", "__proto__", "a", "é", "10"),
        text,
        number,
        fc.uint8Array({ maxLength: 4 }),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(fc.constantFrom(...NAMES), tie("value"), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(ctyType, anyValue, (type, value) => {
        const bytes = encode(value);
        const fast = readTypedMsgpack(bytes, type);
        if (fast !== undefined) expect(shape(fast)).toBe(general(bytes, type));
        expect(decoded(bytes, type)).toBe(general(bytes, type));
      }),
      { numRuns: 3_000, seed },
    );
  });

  /** Each case: bytes the reader leaves to the general way, and what decoding them gives. */
  const LEFT: ReadonlyArray<{ name: string; type: CtyType; hex: string; gives: string }> = [
    { name: "an extension but the unknown's", type: types.string, hex: "d40500", gives: "error: received an object, expected a string" },
    { name: "a key that is an integer", type: types.map(types.string), hex: "8101a161", gives: '{"1": "a"}' },
    { name: "a __proto__ key", type: types.map(types.string), hex: "81a95f5f70726f746f5f5fa161", gives: "error: received 13 bytes that are not MessagePack: The key __proto__ is not allowed" },
    { name: "an attribute the type does not have", type: types.object({ a: types.string }), hex: "81a162a161", gives: "error: b: unsupported attribute: expected one of a" },
    { name: "a string that is not UTF-8 (the library's own decoding of it)", type: types.string, hex: "a2c328", gives: '"\u00e8"' },
    { name: "a long string that starts with a byte order mark (which the library drops)", type: types.string, hex: `da00d2efbbbf${"61".repeat(207)}`, gives: JSON.stringify("a".repeat(207)) },
    { name: "trailing bytes", type: types.bool, hex: "c3c3", gives: "error: received 2 bytes that are not MessagePack: Extra 1 of 2 byte(s) found at buffer[1]" },
    { name: "cut bytes", type: types.string, hex: "a361", gives: "error: received 2 bytes that are not MessagePack: Insufficient data" },
    { name: "a decimal string that is not a number", type: types.number, hex: "a3616263", gives: 'error: received string "abc", expected a number' },
    { name: "a number as binary", type: types.number, hex: "c40131", gives: "error: received 1 bytes, expected a number" },
  ];
  for (const { name, type, hex, gives } of LEFT) {
    it(`leaves ${name} to the general way`, () => {
      const bytes = Buffer.from(hex, "hex");
      expect(readTypedMsgpack(bytes, type)).toBeUndefined();
      expect(decoded(bytes, type)).toBe(gives);
      expect(general(bytes, type)).toBe(gives);
    });
  }

  it("reads an object whose attributes come unsorted or twice, the last one winning, in the type's order", () => {
    const type = types.object({ b: types.number, a: types.string });
    const bytes = Buffer.from("83a16201a161a178a16202", "hex");
    expect(shape(readTypedMsgpack(bytes, type))).toBe('{"b": 2, "a": "x"}');
    expect(general(bytes, type)).toBe('{"b": 2, "a": "x"}');
  });

  it("reads 64-bit integers as the library does (beyond 2^53, to the nearest float64)", () => {
    for (const hex of ["cf0000010000000000", "d3ffffff0000000000", "cfffffffffffffffff", "d38000000000000000", "d3fffffffffffffffe"]) {
      const bytes = Buffer.from(hex, "hex");
      expect(shape(readTypedMsgpack(bytes, types.number)), hex).toBe(general(bytes, types.number));
    }
  });

  it("reads a string written as binary, as cty's reader does", () => {
    expect(readTypedMsgpack(Buffer.from("c4026869", "hex"), types.string)).toBe("hi");
  });

  it("reads bytes at an offset of a larger buffer", () => {
    const whole = Buffer.from("ffa26869ff", "hex");
    expect(readTypedMsgpack(whole.subarray(1, 4), types.string)).toBe("hi");
  });
});
