import type { Kind } from "../../desired/schema.js";
import { terraformDocument, type CheckedByKind } from "../converge-session.js";

/** How many checked documents a process keeps: a terraform command's resources, a few calls each. */
const KEPT = 1024;

const kept = new Map<string, CheckedByKind>();

/**
 * `terraformDocument` of a document, computed once per process for the same kind and content:
 * terraform sends one resource's values in several calls (validate, read, plan, apply), and each
 * makes the same document, which the kind's schema answers the same way every time. The answer is
 * shared, so it is frozen (a caller that changed it would throw). A document that is not plain
 * JSON data is checked anew each time; the oldest answers go first beyond `KEPT`.
 */
export function checkedOnce(kind: Kind, document: Readonly<Record<string, unknown>>): CheckedByKind {
  const key = plainKey(document);
  if (key === undefined) return terraformDocument(kind, document);
  const text = `${kind}\n${key}`;
  const found = kept.get(text);
  if (found !== undefined) return found;
  const checked = deepFreeze(terraformDocument(kind, document));
  if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
  kept.set(text, checked);
  return checked;
}

/** A text equal for two values exactly when they are the same JSON data (keys in order); undefined for anything else (undefined, a class instance, a number JSON cannot hold). */
function plainKey(value: unknown): string | undefined {
  return isPlainJson(value) ? JSON.stringify(value) : undefined;
}

/** Whether JSON.stringify writes `value` whole and as it is: null, strings, booleans, finite numbers, and arrays and plain objects of them. */
function isPlainJson(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isPlainJson) && Object.keys(value).length === value.length;
      return Object.getPrototypeOf(value) === Object.prototype && Object.values(value).every(isPlainJson);
    default:
      return false;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
