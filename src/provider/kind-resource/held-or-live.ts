import { isUnknown, type Value } from "../runtime/index.js";
import type { KindBinding, Values } from "./binding.js";

/** Spec attributes of values whose fields the engine found different from live are live's; the others stay as terraform holds them. */
export function heldOrLive<Live>(
  binding: KindBinding<Live>,
  held: Values,
  live: Values,
  changed: ReadonlySet<string>,
  options: { readonly fillDefaulted: boolean },
): Values {
  return Object.fromEntries(binding.fields.map((field): [string, Value] => {
    const value = held[field.attribute] ?? null;
    const useLive = changed.has(field.field) || isUnknown(value) || (options.fillDefaulted && field.presence === "defaulted" && value === null);
    return [field.attribute, useLive ? live[field.attribute] ?? null : value];
  }));
}
