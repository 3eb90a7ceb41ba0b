import type { AttributePath } from "./attribute-path.js";
import type { CtyType } from "./cty-type.js";
import { describeReceived, ValueTypeError } from "./value-error.js";
import { UNKNOWN, type Value } from "./value.js";

/** How a wire format writes what the shared conversion cannot know: `dynamic` values. */
export interface WireDialect {
  /** The value of a `dynamic` slot (not null, not unknown) from its wire form. */
  readonly dynamic: (raw: unknown, path: AttributePath) => Value;
  /** What a wire object's attribute missing from the type means: ignored, or an error. */
  readonly extraAttributes: "ignore" | "reject";
}

const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

/**
 * Converts a decoded wire tree (msgpack's or JSON's generic values) into a `Value` of `type`,
 * checking it fits: numbers may be written as numbers or decimal strings, a missing object
 * attribute is null. Throws `ValueTypeError` naming the path, the value received and the type.
 */
export function valueFromWire(raw: unknown, type: CtyType, path: AttributePath, dialect: WireDialect): Value {
  if (raw === UNKNOWN) return UNKNOWN;
  if (raw === null || raw === undefined) return null;
  const mismatch = (expected: string) => new ValueTypeError(path, `received ${describeReceived(raw)}, expected ${expected}`);
  switch (type.kind) {
    case "string":
      if (typeof raw === "string") return raw;
      if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
      throw mismatch("a string");
    case "number":
      if (typeof raw === "number") return raw;
      if (typeof raw === "string" && DECIMAL.test(raw)) return Number(raw);
      throw mismatch("a number");
    case "bool":
      if (typeof raw === "boolean") return raw;
      throw mismatch("a bool");
    case "dynamic":
      return dialect.dynamic(raw, path);
    case "list":
    case "set":
      if (!Array.isArray(raw)) throw mismatch(`a ${type.kind}`);
      return raw.map((element, index) => valueFromWire(element, type.element, [...path, { index }], dialect));
    case "tuple":
      if (!Array.isArray(raw) || raw.length !== type.elements.length) throw mismatch(`a tuple of ${type.elements.length}`);
      return raw.map((element, index) => valueFromWire(element, type.elements[index]!, [...path, { index }], dialect));
    case "map": {
      if (!isWireRecord(raw)) throw mismatch("a map");
      const map: Record<string, Value> = {};
      for (const [key, element] of Object.entries(raw)) map[key] = valueFromWire(element, type.element, [...path, { key }], dialect);
      return map;
    }
    case "object": {
      if (!isWireRecord(raw)) throw mismatch("an object");
      if (dialect.extraAttributes === "reject") {
        const extra = Object.keys(raw).find((name) => !Object.hasOwn(type.attributes, name));
        if (extra !== undefined) throw new ValueTypeError([...path, extra], `unsupported attribute: expected one of ${Object.keys(type.attributes).join(", ") || "no attributes"}`);
      }
      const object: Record<string, Value> = {};
      for (const [name, attributeType] of Object.entries(type.attributes)) {
        object[name] = valueFromWire(Object.hasOwn(raw, name) ? raw[name] : null, attributeType, [...path, name], dialect);
      }
      return object;
    }
  }
}

function isWireRecord(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && !(raw instanceof Uint8Array) && raw !== UNKNOWN;
}
