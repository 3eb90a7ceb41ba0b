import type { Diagnostic } from "../runtime/index.js";
import type { KindDocument, Values } from "./binding.js";
import { checkedDocument } from "./document-check.js";

/**
 * ValidateResourceConfig of a kind's resource: the diagnostics of every attribute the kind's schema
 * refuses in the configuration's document (those still unknown aside). It needs the kind's document
 * alone (`KindDocument`): neither the clients nor the engine.
 */
export function validateKindConfig(document: KindDocument, config: Values): Diagnostic[] {
  const checked = checkedDocument(document, config, {});
  return "loaded" in checked ? [] : checked.diagnostics;
}
