/**
 * Live keys: one text per live resource, whatever source names it, so that sources can be compared
 * (drift's conflicts, coverage, and pruning that leaves alone what another source manages).
 * `routes/<apiId>/<routeId>`, `integrations/<apiId>/<integrationId>` (the collections of
 * ClaimCollection), `contacts/<account>/<TYPE>`, `regions/<account>/<region>`, `apis/<apiId>/<apiId>`.
 * The caller's own account is `self` (src/desired/read-key.ts): a source that names it by its ID
 * names another key.
 */
export type LiveKey = string;

/** The key of a live resource: its collection, the API or account it is in, and its ID within it. */
export function liveKeyOf(collection: string, scope: string, id: string): LiveKey {
  return `${collection}/${scope}/${id}`;
}

/** The collection and scope of a key (`routes`, `a1b2c3d4e5`). */
export function liveKeyParts(key: LiveKey): { readonly collection: string; readonly scope: string; readonly id: string } {
  const [collection = "", scope = "", ...rest] = key.split("/");
  return { collection, scope, id: rest.join("/") };
}
