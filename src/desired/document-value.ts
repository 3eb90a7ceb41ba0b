import { closestMatch } from "../contract/closest-match.js";
import { describeZodIssues, formatFieldPath, pinpointZodIssues } from "../contract/field-issues.js";
import { fieldsAt } from "./schema-fields.js";
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
  const schema = DOCUMENT_SCHEMAS[kind];
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = pinpointZodIssues(result.error.issues);
    const unknownFields = new Set(issues.filter((issue) => issue.code === "unrecognized_keys").map((issue) => formatFieldPath(issue.path)));
    return {
      issues: describeZodIssues(issues, value).map((issue) => {
        const path = issue.path ?? [];
        const meant = unknownFields.has(issue.name) ? closestMatch(String(path.at(-1)), fieldsAt(schema, path.slice(0, -1))) : undefined;
        return { path, message: meant === undefined ? issue.message : `${issue.message}: did you mean ${JSON.stringify(meant)}?` };
      }),
    };
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
