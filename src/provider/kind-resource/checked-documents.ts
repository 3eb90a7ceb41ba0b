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
  if (value === null || typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : undefined;
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (const item of value) {
      const key = plainKey(item);
      if (key === undefined) return undefined;
      items.push(key);
    }
    return `[${items.join(",")}]`;
  }
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const entries: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    const key = plainKey(item);
    if (key === undefined) return undefined;
    entries.push(`${JSON.stringify(name)}:${key}`);
  }
  return `{${entries.join(",")}}`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
  return value;
}
