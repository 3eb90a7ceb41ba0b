import type { FieldChange } from "./model.js";

/** Structural equality of JSON values; object key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => deepEqual(item, b[index]));
  }
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every((key) => Object.prototype.hasOwnProperty.call(b, key)
    && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

export interface DiffRules {
  /** Values the service shows when a field was never set: a live default is "absent". */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** Normalizes a value of a field before comparing (e.g. trim, sort a set). */
  readonly normalize?: Readonly<Record<string, (value: unknown) => unknown>>;
  /** Fields never compared (identities, pins, references resolved elsewhere). */
  readonly ignore?: ReadonlyArray<string>;
}

/**
 * The fields where live differs from desired. Only fields the desired side sets are compared
 * (`undefined` is "don't care"); `null` means the field must be absent, and a live value equal
 * to the server default counts as absent; values are normalized before comparing.
 */
export function diffFields(desired: Readonly<Record<string, unknown>>, live: Readonly<Record<string, unknown>>, rules: DiffRules = {}): FieldChange[] {
  const changes: FieldChange[] = [];
  const ignore = new Set(rules.ignore ?? []);
  for (const [field, want] of Object.entries(desired)) {
    if (want === undefined || ignore.has(field)) continue;
    const have = live[field];
    const fallback = rules.defaults?.[field];
    const normalize = rules.normalize?.[field] ?? ((value: unknown) => value);
    if (want === null) {
      if (have !== undefined && have !== null && !deepEqual(normalize(have), normalize(fallback))) changes.push({ path: field, before: have, after: null });
      continue;
    }
    const effective = have === undefined || have === null ? fallback : have;
    if (!deepEqual(normalize(want), normalize(effective))) changes.push({ path: field, before: have ?? null, after: want });
  }
  return changes;
}

/** A PATCH body with exactly the changed fields (`null` clears). */
export function patchOf(changes: ReadonlyArray<FieldChange>): Record<string, unknown> {
  return Object.fromEntries(changes.map((change) => [change.path, change.after]));
}

/** A create body: the set fields, without nulls ("must be absent" is what create does anyway). */
export function bodyOf(spec: Readonly<Record<string, unknown>>, omit: ReadonlyArray<string> = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(spec).filter(([field, value]) => value !== undefined && value !== null && !omit.includes(field)));
}
