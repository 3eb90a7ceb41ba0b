import type { z } from "zod";
import { describeZodIssues, pinpointZodIssues } from "../src/contract/field-issues.js";

/**
 * Validation of construct props with the desired-state schemas: the props are turned into the
 * document they declare, the document is checked by the same zod schema as a file's, and each issue
 * is reported under the prop's own name (`emailAddress`, not `spec.emailAddress`).
 */

/** Every problem of `document` under `schema`, one message per invalid prop; empty when valid. */
export function documentProblems(schema: z.ZodType, document: Readonly<Record<string, unknown>>): string[] {
  const result = schema.safeParse(document);
  if (result.success) return [];
  const issues = pinpointZodIssues(result.error.issues).map((issue) => ({ ...issue, path: propPath(issue.path) }));
  return describeZodIssues(issues, propsView(document)).map((issue) => issue.message);
}

/** A document path as a prop path: fields of `spec` are props of their own; `kind` and `spec` are not props. */
function propPath(path: ReadonlyArray<PropertyKey>): PropertyKey[] {
  return path[0] === "spec" ? path.slice(1) : [...path];
}

function propsView(document: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { spec, kind: _kind, ...rest } = document;
  return { ...(spec !== null && typeof spec === "object" ? spec : {}), ...rest };
}
