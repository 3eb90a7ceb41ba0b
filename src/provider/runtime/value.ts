import type { CtyType } from "./cty-type.js";

/**
 * The unknown value: a value terraform will only know after apply ("known after apply"). There is
 * one, `UNKNOWN`; compare with `isUnknown(value)` or `value === UNKNOWN`. Refinements terraform
 * may attach to an unknown (not null, a string prefix, a number range) are dropped on decoding:
 * terraform compares values without them when it checks a plan.
 */
export class Unknown {
  /** The one instance, exported as `UNKNOWN`. */
  static readonly value: Unknown = Object.freeze(new Unknown());
  private constructor() {}
  toString(): string {
    return "(known after apply)";
  }
  toJSON(): string {
    return "(known after apply)";
  }
}

export const UNKNOWN: Unknown = Unknown.value;

export function isUnknown(value: unknown): value is Unknown {
  return value === UNKNOWN;
}

/**
 * A value of a `dynamic` attribute together with its concrete type. Decoding a `dynamic` attribute
 * gives one (so a list stays a list and a set a set when it is encoded again); a plain JS value in a
 * `dynamic` slot is encoded with the type it implies (string, number, bool, tuple, object).
 */
export class TypedValue {
  constructor(
    readonly type: CtyType,
    readonly value: Value,
  ) {}
}

/**
 * A terraform value in JS: `null` is terraform's null, `UNKNOWN` its unknown; strings, numbers
 * (float64: integers beyond 2^53 lose precision) and booleans; lists, sets and tuples are arrays;
 * objects and maps are plain objects. A missing object attribute reads as null. Values the
 * runtime hands out are never mutated by it; resources should not mutate them either.
 */
export type Value =
  | null
  | Unknown
  | string
  | number
  | boolean
  | TypedValue
  | ReadonlyArray<Value>
  | { readonly [key: string]: Value };

/** An object or map value (not an array, not null, unknown or a typed value). */
export function isObjectValue(value: Value | undefined): value is { readonly [key: string]: Value } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Unknown) && !(value instanceof TypedValue);
}

/** Whether an unknown is anywhere inside the value. */
export function containsUnknown(value: Value | undefined): boolean {
  if (value === UNKNOWN) return true;
  if (value instanceof TypedValue) return containsUnknown(value.value);
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (isObjectValue(value)) return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * Whether two values of a type are equal as terraform compares them: unknown equals only unknown,
 * a set's elements in any order, a missing object attribute equals null.
 */
export function valuesEqual(type: CtyType, left: Value | undefined, right: Value | undefined): boolean {
  const a = left ?? null;
  const b = right ?? null;
  if (a === b) return true;
  if (a === null || b === null || a === UNKNOWN || b === UNKNOWN) return false;
  switch (type.kind) {
    case "string":
    case "number":
    case "bool":
      return false;
    case "dynamic": {
      const typedA = a instanceof TypedValue ? a.value : a;
      const typedB = b instanceof TypedValue ? b.value : b;
      const elementType = a instanceof TypedValue ? a.type : b instanceof TypedValue ? b.type : undefined;
      return elementType === undefined ? plainEqual(typedA, typedB) : valuesEqual(elementType, typedA, typedB);
    }
    case "list":
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((element, index) => valuesEqual(type.element, element, b[index]));
    case "tuple":
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((element, index) => valuesEqual(type.elements[index] ?? { kind: "dynamic" }, element, b[index]));
    case "set": {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      const unmatched = [...b];
      for (const element of a) {
        const index = unmatched.findIndex((candidate) => valuesEqual(type.element, element, candidate));
        if (index < 0) return false;
        unmatched.splice(index, 1);
      }
      return true;
    }
    case "map": {
      if (!isObjectValue(a) || !isObjectValue(b)) return false;
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && valuesEqual(type.element, a[key], b[key]));
    }
    case "object":
      return isObjectValue(a) && isObjectValue(b) && Object.entries(type.attributes).every(([name, attribute]) => valuesEqual(attribute, a[name], b[name]));
  }
}

function plainEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((element, index) => plainEqual(element, b[index]!));
  if (isObjectValue(a) && isObjectValue(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => plainEqual(a[key]!, b[key] ?? null));
  }
  return false;
}
