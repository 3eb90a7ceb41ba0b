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
