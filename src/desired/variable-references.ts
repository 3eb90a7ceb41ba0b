/**
 * The `${var.…}` references of a desired-state value (docs/manual/desired-state.md, "Environments
 * and variables"): `${var.NAME}`, `${var.NAME:-default}` and `${var.NAME:?message}`. Only the
 * `var.` prefix makes a reference; every other `${…}` is the services' own text and is left as it
 * is; `$${var.` is the literal text `${var.`.
 */

/** A variable's name: a letter or `_`, then letters, digits and `_` (what a shell allows in CONVERGE_VAR_NAME). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The prefix of the environment variables that give variables: `CONVERGE_VAR_api_id` gives `api_id`. */
export const VARIABLE_ENV_PREFIX = "CONVERGE_VAR_";

/** What opens a reference (and, after a `$`, its escape). */
export const REFERENCE_OPENING = "${var.";

/** One reference as written. */
export interface VariableReference {
  readonly name: string;
  /** `:-default`: the text used when the variable is unset, empty or null. */
  readonly fallback?: string | undefined;
  /** `:?message`: the message of the refusal when the variable is unset, empty or null. */
  readonly required?: string | undefined;
  /** The reference's text, `${var.NAME…}`, for messages. */
  readonly written: string;
}

/** A string as literal text and references, in order; or the reasons it holds malformed references. */
export type ParsedTemplate =
  | { readonly parts: ReadonlyArray<string | VariableReference>; readonly malformed?: undefined }
  | { readonly parts?: undefined; readonly malformed: ReadonlyArray<string> };

/** What follows `${var.` in a reference, read where it stands (sticky: no slice of the text). */
const REFERENCE_BODY = /([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}/y;
const EXPECTED = "expected ${var.NAME}, ${var.NAME:-default} or ${var.NAME:?message}, NAME a letter or _ then letters, digits or _ "
  + "(write $${var. for the text ${var. itself)";

/**
 * The parts of `text`, or undefined when it holds no `${var.` at all (the common case, found with
 * one search). Escapes are resolved (`$${var.x}` is the text `${var.x}`); a default or message is
 * literal text up to the first `}` and may not itself hold `${` (there is no nesting).
 */
export function parseTemplate(text: string): ParsedTemplate | undefined {
  let at = text.indexOf(REFERENCE_OPENING);
  if (at === -1) return undefined;
  const parts: Array<string | VariableReference> = [];
  const malformed: string[] = [];
  let literal = "";
  let from = 0;
  while (at !== -1) {
    if (at > 0 && text[at - 1] === "$") {
      literal += text.slice(from, at - 1) + REFERENCE_OPENING;
      from = at + REFERENCE_OPENING.length;
      at = text.indexOf(REFERENCE_OPENING, from);
      continue;
    }
    literal += text.slice(from, at);
    REFERENCE_BODY.lastIndex = at + REFERENCE_OPENING.length;
    const body = REFERENCE_BODY.exec(text);
    const written = body ? text.slice(at, REFERENCE_BODY.lastIndex) : excerpt(text, at);
    if (!body || body[3]?.includes("${")) {
      malformed.push(body
        ? `${JSON.stringify(written)} is not a valid variable reference: a default or message is literal text and may not hold \${ (no nesting)`
        : `${JSON.stringify(written)} is not a valid variable reference: ${EXPECTED}`);
      from = at + (body ? written.length : REFERENCE_OPENING.length);
    } else {
      if (literal !== "") parts.push(literal);
      literal = "";
      parts.push({
        name: body[1]!,
        written,
        ...(body[2] === ":-" ? { fallback: body[3]! } : {}),
        ...(body[2] === ":?" ? { required: body[3]! } : {}),
      });
      from = at + written.length;
    }
    at = text.indexOf(REFERENCE_OPENING, from);
  }
  if (malformed.length > 0) return { malformed };
  literal += text.slice(from);
  if (literal !== "") parts.push(literal);
  return { parts };
}

/** A malformed reference's text for a message: up to its `}` or the end of the line, at most 60 characters. */
function excerpt(text: string, at: number): string {
  const rest = text.slice(at, at + 60);
  const end = rest.search(/[}\n]/);
  return end === -1 ? rest : rest.slice(0, rest[end] === "}" ? end + 1 : end);
}

/** Whether the character code is one of a name's: a letter, a digit or `_`. */
function isNameCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

/** `text` written so that it reads back as itself: every `${var.` escaped as `$${var.` (what `converge render` writes). */
export function escapeReferences(text: string): string {
  return text.includes(REFERENCE_OPENING) ? text.replaceAll(REFERENCE_OPENING, () => `$${REFERENCE_OPENING}`) : text;
}

/** A document's values (not its keys, not its `kind`) with every `${var.` escaped: written out, it reads back as itself. */
export function escapeDocumentReferences(document: unknown): unknown {
  const escape = (value: unknown, top: boolean): unknown => {
    if (typeof value === "string") return escapeReferences(value);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item) => escape(item, false));
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, top && key === "kind" ? item : escape(item, false)]));
  };
  return escape(document, true);
}

/**
 * Scans a file's text once: adds to `used` the names its references refer to (escapes left out:
 * what its documents use, found without parsing them, so that every drift shard finds the same),
 * and answers where the text may hold a reference: a part `[start, end)` with neither `${var.` nor
 * `\` (a YAML or JSON escape can spell `${var.` otherwise) holds no value with a reference, so its
 * documents need no walk.
 */
export function scanReferences(text: string, used: Set<string>): (start: number, end: number) => boolean {
  const marks: number[] = [];
  for (let at = text.indexOf(REFERENCE_OPENING); at !== -1; at = text.indexOf(REFERENCE_OPENING, at + 1)) {
    marks.push(at);
    if (at > 0 && text.charCodeAt(at - 1) === 36) continue; // `$${var.`: an escape
    const start = at + REFERENCE_OPENING.length;
    let end = start;
    while (end < text.length && isNameCode(text.charCodeAt(end))) end += 1;
    if (end > start) used.add(text.slice(start, end));
  }
  const escapes = marks.length;
  for (let at = text.indexOf("\\"); at !== -1; at = text.indexOf("\\", at + 1)) marks.push(at);
  if (marks.length === 0) return () => false;
  if (marks.length > escapes) marks.sort((a, b) => a - b);
  return (start, end) => {
    let low = 0;
    let high = marks.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (marks[middle]! < start) low = middle + 1;
      else high = middle;
    }
    return low < marks.length && marks[low]! < end;
  };
}
