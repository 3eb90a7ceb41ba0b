import { formatFieldPath, isPlainObject, renderValue } from "../contract/field-issues.js";
import { closestMatch } from "../contract/closest-match.js";
import { checkDocument } from "./document-value.js";
import type { DesiredStateProblem } from "./desired-state-error.js";
import type { LoadedDocument } from "./loaded-document.js";
import { FileDocument, type DocumentLocator } from "./raw-document.js";
import { KINDS, type Kind } from "./schema.js";

/** A parsed document to validate: its value, and where it stands (a RawDocument, or its value once variables are substituted). */
export interface DocumentToValidate {
  readonly value: unknown;
  readonly locator: DocumentLocator;
}

/** Validates one parsed document against the schema of its kind. */
export function validateDocument(raw: DocumentToValidate): { document: LoadedDocument } | { problems: DesiredStateProblem[] } {
  const value = raw.value;
  const problem = (path: ReadonlyArray<PropertyKey>, message: string): DesiredStateProblem => ({
    ...raw.locator.locate(path),
    path: path.length ? formatFieldPath(path) : "",
    message,
  });
  if (!isPlainObject(value)) {
    return { problems: [problem([], `a document must be a mapping with kind and spec, received ${renderValue(value)}`)] };
  }
  const kind = value.kind;
  if (kind === undefined && "formatVersion" in value && "liveFingerprint" in value && "actions" in value) {
    return { problems: [problem([], "this is a plan written by converge plan --out, not desired state: "
      + "write plans outside the directories passed to -f, and apply them with converge apply PLAN.json")] };
  }
  if (typeof kind !== "string" || !(KINDS as ReadonlyArray<string>).includes(kind)) {
    const received = kind === undefined ? "kind is missing" : `kind ${renderValue(kind)} is not valid`;
    const variable = typeof kind === "string" && kind.includes("${var.") ? " (a document's kind is never a variable: variables are read in the other values)" : "";
    const meant = typeof kind === "string" ? closestMatch(kind, KINDS) : undefined;
    return { problems: [problem(["kind"], `${received}: expected one of ${KINDS.join(", ")}${variable}${meant ? ` (did you mean ${meant}?)` : ""}`)] };
  }
  const checked = checkDocument(kind as Kind, value);
  if ("issues" in checked) return { problems: checked.issues.map((issue) => problem(issue.path, issue.message)) };
  return { document: new FileDocument(checked.document, raw.locator) };
}
