import { Decoder, Encoder, ExtensionCodec } from "@msgpack/msgpack";
import { pathAt, type AttributePath, type LinkStep, type PathLink } from "./attribute-path.js";
import { extraAttribute, sortedAttributeNames, sortedKeys, typeFromJson, typeToJson, type CtyType } from "./cty-type.js";
import { readTypedMsgpack } from "./msgpack-reader.js";
import { valueFromWire, type WireDialect } from "./value-decoding.js";
import { describeReceived, mismatchAt, ValueTypeError } from "./value-error.js";
import { isObjectValue, TypedValue, UNKNOWN, Unknown, type Value } from "./value.js";

/**
 * terraform's values as MessagePack, the way cty encodes them (go-cty `cty/msgpack`): null is nil,
 * an unknown is extension 0 (`d4 00 00`; extension 12, an unknown with refinements, is accepted),
 * numbers are integers, float64 or decimal strings, objects and maps are maps with their keys
 * sorted, lists, sets and tuples are arrays, and a `dynamic` value is `[type JSON as bytes, value]`.
 */

const UNKNOWN_EXTENSION = 0;
const REFINED_UNKNOWN_EXTENSION = 12;
const UNKNOWN_BODY = new Uint8Array([0]);

const extensions = new ExtensionCodec();
extensions.register({ type: UNKNOWN_EXTENSION, encode: (value) => (value === UNKNOWN ? UNKNOWN_BODY : null), decode: () => UNKNOWN });
extensions.register({ type: REFINED_UNKNOWN_EXTENSION, encode: () => null, decode: () => UNKNOWN });

// one of each per process, made at first use: a call's values are encoded and decoded whole, and a
// nested call (an extension's codec) gets a copy of its own from the library; encode answers a copy
// of its buffer
let encoder: Encoder | undefined;
let decoder: Decoder | undefined;

const dialect: WireDialect = {
  extraAttributes: "reject",
  dynamic(raw, path) {
    if (!Array.isArray(raw) || raw.length !== 2) throw new ValueTypeError(path, `received ${describeReceived(raw)}, expected a dynamic value [type, value]`);
    const [typeJson, inner] = raw as [unknown, unknown];
    const text = typeJson instanceof Uint8Array ? Buffer.from(typeJson).toString("utf8") : typeJson;
    if (typeof text !== "string") throw new ValueTypeError(path, `received a dynamic value whose type is ${describeReceived(typeJson)}, expected type JSON`);
    let type: CtyType;
    try {
      type = typeFromJson(JSON.parse(text));
    } catch (error) {
      throw new ValueTypeError(path, `received a dynamic value of type ${text}: ${(error as Error).message}`);
    }
    return new TypedValue(type, valueFromWire(inner, type, path, dialect));
  },
};

/**
 * Decodes a `DynamicValue.msgpack` of the given type. Throws `ValueTypeError` on bytes that do not fit it.
 * Bytes as terraform writes them are read straight into the value (msgpack-reader.ts); any others
 * are decoded by the library and converted, whose errors name the path and the value received.
 */
export function decodeMsgpack(bytes: Uint8Array, type: CtyType): Value {
  return readTypedMsgpack(bytes, type) ?? decodeGeneral(bytes, type);
}

/** Decodes any MessagePack with the library, then converts the tree to a value of `type`: the reference for the reader's plain case. */
export function decodeGeneral(bytes: Uint8Array, type: CtyType): Value {
  let raw: unknown;
  try {
    raw = (decoder ??= new Decoder({ extensionCodec: extensions })).decode(bytes);
  } catch (error) {
    throw new ValueTypeError([], `received ${bytes.length} bytes that are not MessagePack: ${(error as Error).message}`);
  }
  return valueFromWire(raw, type, [], dialect);
}

/** Encodes a value of the given type. Throws `ValueTypeError` naming the path of a value that does not fit it. */
export function encodeMsgpack(value: Value, type: CtyType): Uint8Array {
  return (encoder ??= new Encoder({ extensionCodec: extensions, ignoreUndefined: false })).encode(valueToWire(value, type, [], undefined));
}

function valueToWire(value: Value | undefined, type: CtyType, above: AttributePath | PathLink, step: LinkStep): unknown {
  if (value === UNKNOWN) return UNKNOWN;
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case "string":
      if (typeof value === "string") return value;
      throw mismatchAt(value, "a string", above, step);
    case "number":
      if (typeof value === "number" && !Number.isNaN(value)) return value;
      throw mismatchAt(value, "a number", above, step);
    case "bool":
      if (typeof value === "boolean") return value;
      throw mismatchAt(value, "a bool", above, step);
    case "dynamic": {
      const typed = value instanceof TypedValue ? value : new TypedValue(impliedType(value, pathAt(above, step)), value);
      return [Buffer.from(JSON.stringify(typeToJson(typed.type))), valueToWire(typed.value, typed.type, above, step)];
    }
    case "list":
    case "set": {
      if (!Array.isArray(value)) throw mismatchAt(value, `a ${type.kind}`, above, step);
      const here: PathLink = { above, step };
      return (value as ReadonlyArray<Value>).map((element, index) => valueToWire(element, type.element, here, index));
    }
    case "tuple": {
      if (!Array.isArray(value) || value.length !== type.elements.length) throw mismatchAt(value, `a tuple of ${type.elements.length}`, above, step);
      const here: PathLink = { above, step };
      return (value as ReadonlyArray<Value>).map((element, index) => valueToWire(element, type.elements[index]!, here, index));
    }
    case "map": {
      if (!isObjectValue(value)) throw mismatchAt(value, "a map", above, step);
      const here: PathLink = { above, step };
      const map: Record<string, unknown> = {};
      for (const key of sortedKeys(value)) map[key] = valueToWire(value[key], type.element, here, { key });
      return map;
    }
    case "object": {
      if (!isObjectValue(value)) throw mismatchAt(value, "an object", above, step);
      const extra = extraAttribute(value, type);
      if (extra !== undefined) throw new ValueTypeError([...pathAt(above, step), extra], `is not an attribute of the schema: expected one of ${Object.keys(type.attributes).join(", ") || "no attributes"}`);
      const here: PathLink = { above, step };
      const object: Record<string, unknown> = {};
      for (const name of sortedAttributeNames(type)) object[name] = valueToWire(value[name], type.attributes[name]!, here, name);
      return object;
    }
  }
}

/** The type a plain value in a `dynamic` slot is encoded as (cty's implied type of JSON). */
function impliedType(value: Value, path: AttributePath): CtyType {
  if (value === null || value instanceof Unknown) return { kind: "dynamic" };
  if (value instanceof TypedValue) return value.type;
  switch (typeof value) {
    case "string":
      return { kind: "string" };
    case "number":
      return { kind: "number" };
    case "boolean":
      return { kind: "bool" };
  }
  if (Array.isArray(value)) return { kind: "tuple", elements: (value as ReadonlyArray<Value>).map((element, index) => impliedType(element, [...path, { index }])) };
  if (isObjectValue(value)) return { kind: "object", attributes: Object.fromEntries(Object.entries(value).map(([name, attribute]) => [name, impliedType(attribute, [...path, name])])) };
  throw new ValueTypeError(path, `received ${describeReceived(value)}, expected a value of a dynamic attribute`);
}
