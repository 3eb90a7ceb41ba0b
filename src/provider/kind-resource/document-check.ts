import { formatFieldPath } from "../../contract/field-issues.js";
import type { LoadedDocument } from "../../desired/load.js";
import type { LiveNeed } from "../../reconcile/model.js";
import { needsOfDocument } from "../converge-session.js";
import { isUnknown, type Diagnostic } from "../runtime/index.js";
import type { DocumentOptions, KindBinding, KindDocument, Values } from "./binding.js";
import { checkedOnce } from "./checked-documents.js";
import { problemDiagnostic } from "./diagnostics.js";

/** A document the kind's schema accepts, or the diagnostics of every attribute it refuses. */
export type CheckedDocument = { readonly loaded: LoadedDocument } | { readonly diagnostics: Diagnostic[] };

/** The document of terraform values as the kind's schema accepts it, or the diagnostics of every attribute it refuses (those still unknown aside). */
export function checkedDocument(binding: KindDocument, values: Values, options: DocumentOptions): CheckedDocument {
  const checked = checkedOnce(binding.kind, binding.document(values, options));
  if ("loaded" in checked) return checked;
  const diagnostics = checked.issues
    .map((issue) => ({ issue, path: formatFieldPath(issue.path) }))
    .filter(({ path }) => {
      const at = binding.attributeOf(path);
      return at === undefined || !isUnknown(values[at.attribute] ?? null);
    })
    .map(({ issue, path }) => problemDiagnostic(binding, path, issue.message));
  return { diagnostics };
}

/** Whether every attribute that names the live resource (its API, its account) is known: else the engine cannot plan. */
export function identityKnown<Live>(binding: KindBinding<Live>, values: Values): boolean {
  return binding.identityAttributes.every((attribute) => !isUnknown(values[attribute] ?? null));
}

/** The reads the resource's document needs (its read key), from the values that name it. */
export function needsOf(binding: KindDocument, values: Values): Promise<LiveNeed[]> {
  return needsOfDocument(binding.document(values, {}));
}
