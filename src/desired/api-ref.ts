import type { ApiRef } from "./schema.js";

/**
 * The key an API reference is compared by before it is resolved: the apiId, or `name:<name>`. Two
 * equal keys name the same API; an apiId and a name may name the same API too, which only resolving
 * the name (at plan time) can tell.
 */
export function apiRefKey(ref: ApiRef): string {
  return typeof ref === "string" ? ref : `name:${ref.name}`;
}

/** How messages name an API reference: `a1b2c3d4e5`, or `named "orders"`. */
export function describeApiRef(ref: ApiRef): string {
  return typeof ref === "string" ? ref : `named ${JSON.stringify(ref.name)}`;
}

/** Whether an API reference key is a name (`name:<name>`), which may be the same API as any apiId. */
export function isNameKey(key: string): boolean {
  return key.startsWith("name:");
}
