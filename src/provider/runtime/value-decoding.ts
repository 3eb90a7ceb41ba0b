import { pathAt, type AttributePath, type LinkStep, type PathLink } from "./attribute-path.js";
import { attributeEntries, extraAttribute, type CtyType } from "./cty-type.js";
import { mismatchAt, ValueTypeError } from "./value-error.js";
import { UNKNOWN, type Value } from "./value.js";

/** How a wire format writes what the shared conversion cannot know: `dynamic` values. */
export interface WireDialect {
  /** The value of a `dynamic` slot (not null, not unknown) from its wire form. */
  readonly dynamic: (raw: unknown, path: AttributePath) => Value;
  /** What a wire object's attribute missing from the type means: ignored, or an error. */
  readonly extraAttributes: "ignore" | "reject";
}

/** How a number may be written as a string (cty's decimal form). */
export const DECIMAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

/**
 * Converts a decoded wire tree (msgpack's or JSON's generic values) into a `Value` of `type`,
 * checking it fits: numbers may be written as numbers or decimal strings, a missing object
 * attribute is null. Throws `ValueTypeError` naming the path, the value received and the type.
 */
export function valueFromWire(raw: unknown, type: CtyType, path: AttributePath, dialect: WireDialect): Value {
  return fromWire(raw, type, path, undefined, dialect);
}

function fromWire(raw: unknown, type: CtyType, above: AttributePath | PathLink, step: LinkStep, dialect: WireDialect): Value {
  if (raw === UNKNOWN) return UNKNOWN;
  if (raw === null || raw === undefined) return null;
  switch (type.kind) {
    case "string":
      if (typeof raw === "string") return raw;
      if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8");
      throw mismatchAt(raw, "a string", above, step);
    case "number":
      if (typeof raw === "number") return raw;
      if (typeof raw === "string" && DECIMAL.test(raw)) return Number(raw);
      throw mismatchAt(raw, "a number", above, step);
    case "bool":
      if (typeof raw === "boolean") return raw;
      throw mismatchAt(raw, "a bool", above, step);
    case "dynamic":
      return dialect.dynamic(raw, pathAt(above, step));
    case "list":
    case "set": {
      if (!Array.isArray(raw)) throw mismatchAt(raw, `a ${type.kind}`, above, step);
      const here: PathLink = { above, step };
      return raw.map((element, index) => fromWire(element, type.element, here, index, dialect));
    }
    case "tuple": {
      if (!Array.isArray(raw) || raw.length !== type.elements.length) throw mismatchAt(raw, `a tuple of ${type.elements.length}`, above, step);
      const here: PathLink = { above, step };
      return raw.map((element, index) => fromWire(element, type.elements[index]!, here, index, dialect));
    }
    case "map": {
      if (!isWireRecord(raw)) throw mismatchAt(raw, "a map", above, step);
      const here: PathLink = { above, step };
      const map: Record<string, Value> = {};
      for (const [key, element] of Object.entries(raw)) map[key] = fromWire(element, type.element, here, { key }, dialect);
      return map;
    }
    case "object": {
      if (!isWireRecord(raw)) throw mismatchAt(raw, "an object", above, step);
      if (dialect.extraAttributes === "reject") {
        const extra = extraAttribute(raw, type);
        if (extra !== undefined) throw new ValueTypeError([...pathAt(above, step), extra], `unsupported attribute: expected one of ${Object.keys(type.attributes).join(", ") || "no attributes"}`);
      }
      const here: PathLink = { above, step };
      const object: Record<string, Value> = {};
      for (const [name, attributeType] of attributeEntries(type)) object[name] = fromWire(Object.hasOwn(raw, name) ? raw[name] : null, attributeType, here, name, dialect);
      return object;
    }
  }
}

function isWireRecord(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === "object" && raw !== null && !Array.isArray(raw) && !(raw instanceof Uint8Array) && raw !== UNKNOWN;
}
