import { describeZodIssues, pinpointZodIssues } from "../contract/field-issues.js";
import type { SourceLocation } from "./desired-state-error.js";
import type { LoadedDocument } from "./loaded-document.js";
import { DOCUMENT_SCHEMAS, type Document, type Kind } from "./schema.js";

/** A field of a document that breaks its kind's schema: the path (`spec.routeKey`) and why. */
export interface DocumentIssue {
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
}

/**
 * A value checked by the schema of its kind, as the loader checks a file's documents: the document
 * as the schema parses it (defaults filled in), or every field that breaks the schema.
 */
export function checkDocument(kind: Kind, value: unknown): { readonly document: Document } | { readonly issues: DocumentIssue[] } {
  const result = DOCUMENT_SCHEMAS[kind].safeParse(value);
  if (!result.success) {
    return { issues: describeZodIssues(pinpointZodIssues(result.error.issues), value).map((issue) => ({ path: issue.path ?? [], message: issue.message })) };
  }
  return { document: result.data as Document };
}

/**
 * A document of `kind` given as a value rather than read from a file (the provider builds one per
 * terraform resource), checked as `checkDocument` does. All of it stands at `source`.
 */
export function documentFromValue<K extends Kind>(kind: K, value: unknown, source: SourceLocation): { readonly loaded: LoadedDocument<Extract<Document, { kind: K }>> } | { readonly issues: DocumentIssue[] } {
  const checked = checkDocument(kind, value);
  if ("issues" in checked) return checked;
  return { loaded: { document: checked.document as Extract<Document, { kind: K }>, source, locate: () => source } };
}
