/** The fields of exported documents (export.ts and each kind's export capability, src/reconcile/kinds/). */

/** `first` in that order, then the rest of `all` in theirs. */
export function fieldOrder(first: ReadonlyArray<string>, all: ReadonlyArray<string>): string[] {
  return [...first, ...all.filter((field) => !first.includes(field))];
}

/** The spec fields of a live resource, in `order`, without unset fields and server defaults. */
export function exportedSpec(live: object, order: ReadonlyArray<string>, defaults: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record = live as Record<string, unknown>;
  const spec: Record<string, unknown> = {};
  for (const field of order) {
    const value = record[field];
    if (value === undefined || value === null || (field in defaults && value === defaults[field])) continue;
    spec[field] = value;
  }
  return spec;
}

/** Lower-case letters and digits of a text, each run of others one `_`: a terraform name (`GET /orders/{id}` → `get_orders_id`). */
export function terraformSlug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

/**
 * How an account document's terraform resource names its account: the import ID's `ACCOUNT_ID/`
 * prefix and the label's `_ACCOUNT_ID` suffix; both empty for the caller's own account (no `account`).
 */
export function accountOfResource(document: { readonly account?: string | undefined }): { readonly importPrefix: string; readonly labelSuffix: string } {
  return typeof document.account === "string" ? { importPrefix: `${document.account}/`, labelSuffix: `_${document.account}` } : { importPrefix: "", labelSuffix: "" };
}
