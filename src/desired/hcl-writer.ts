/**
 * Terraform configuration text (HCL native syntax) as `terraform fmt` writes it: two spaces of
 * indentation per level, the `=` of consecutive one-line attributes aligned, one space around `=`,
 * lists of one-line items on one line, objects one item a line. Every string is made literal
 * (`hclString`): a value read from a service never becomes an expression, a template sequence or a
 * line of configuration. The one writer of the HCL converge emits (`converge export --format
 * terraform`, `converge provider install`'s example); the same input always gives the same bytes.
 */

/** An expression written as it is: a reference or a template converge makes, never user text. */
export class HclExpression {
  /** @param text HCL expression text, e.g. `data.converge_api.orders.api_id`. */
  constructor(readonly text: string) {}
}

/** A value of an attribute: literal values (strings made literal), lists, objects and maps (keys quoted unless identifiers), or an expression. */
export type HclValue = string | number | boolean | null | HclExpression | ReadonlyArray<HclValue> | { readonly [key: string]: HclValue };

/** One item of a body: an attribute, a block, comment lines (`# ` each) or an empty line. */
export type HclBodyItem =
  | { readonly attribute: string; readonly value: HclValue }
  | { readonly block: string; readonly labels?: ReadonlyArray<string>; readonly body: ReadonlyArray<HclBodyItem> }
  | { readonly comment: ReadonlyArray<string> }
  | { readonly blank: true };

/** A reference to an attribute or an object (`converge_integration.backend.integration_id`); each part must be an identifier. */
export function hclReference(...parts: ReadonlyArray<string>): HclExpression {
  const bad = parts.find((part) => !isHclIdentifier(part));
  if (bad !== undefined) throw new Error(`hcl reference part ${JSON.stringify(bad)} is not valid: expected an identifier (letters, digits, _ and -, not starting with a digit or -)`);
  return new HclExpression(parts.join("."));
}

/** A template of literal text and interpolated expressions: `hclTemplate("integrations/", ref)` is `"integrations/${ref}"`. */
export function hclTemplate(...parts: ReadonlyArray<string | HclExpression>): HclExpression {
  return new HclExpression(`"${parts.map((part) => (typeof part === "string" ? literalText(part) : `\${${part.text}}`)).join("")}"`);
}

/**
 * A string as an HCL quoted literal that reads back as exactly `text`: `"` and `\` escaped,
 * newlines, tabs and other control characters as escapes, `${` and `%{` doubled (`$${`, `%%{`),
 * so that nothing in it is a template sequence.
 */
export function hclString(text: string): string {
  return `"${literalText(text)}"`;
}

const HCL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Whether `name` is an identifier terraform accepts as a resource name or an attribute: a letter or `_`, then letters, digits, `_` and `-`. */
export function isHclIdentifier(name: string): boolean {
  return HCL_IDENTIFIER.test(name);
}

/**
 * `name` as an identifier (a resource's label): every character that may not stand in one becomes
 * `_`, and a name that would start with a digit or `-` (or is empty) gets `_` in front.
 */
export function hclIdentifier(name: string): string {
  const replaced = name.replace(/[^A-Za-z0-9_-]/g, "_");
  return /^[A-Za-z_]/.test(replaced) ? replaced : `_${replaced}`;
}

/** A body as text: items at the top level, each line ended by a newline. */
export function renderHcl(body: ReadonlyArray<HclBodyItem>): string {
  return renderBody(body, "");
}

/** Lines of HCL each behind `# ` (an empty line as `#`): a block shown for reference, not declared. */
export function commentedHcl(body: ReadonlyArray<HclBodyItem>): HclBodyItem {
  return { comment: renderHcl(body).replace(/\n$/, "").split("\n") };
}

/** Keys of objects that must be quoted even though they read as identifiers: they would be read as a value or a keyword. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(["true", "false", "null", "for", "in", "if", "endfor", "endif", "else"]);

function renderBody(body: ReadonlyArray<HclBodyItem>, indent: string): string {
  let text = "";
  // one-line attributes in a row: fmt aligns their `=` one column after the longest name
  let run: Array<{ name: string; value: string }> = [];
  const flush = () => {
    const width = Math.max(0, ...run.map((line) => line.name.length));
    for (const line of run) text += `${indent}${line.name.padEnd(width)} = ${line.value}\n`;
    run = [];
  };
  for (const item of body) {
    if ("attribute" in item) {
      if (!isHclIdentifier(item.attribute)) throw new Error(`hcl attribute name ${JSON.stringify(item.attribute)} is not valid: expected an identifier`);
      pushLine(item.attribute, renderValue(item.value, indent));
      continue;
    }
    flush();
    if ("block" in item) {
      const header = [item.block, ...(item.labels ?? []).map(hclString)].join(" ");
      text += item.body.length === 0 ? `${indent}${header} {\n${indent}}\n` : `${indent}${header} {\n${renderBody(item.body, `${indent}  `)}${indent}}\n`;
    } else if ("comment" in item) {
      for (const line of item.comment.flatMap((entry) => entry.split("\n"))) text += `${indent}#${line.trimEnd() === "" ? "" : ` ${line.trimEnd()}`}\n`;
    } else {
      text += "\n";
    }
  }
  flush();
  return text;

  function pushLine(name: string, value: string): void {
    if (value.includes("\n")) {
      flush();
      text += `${indent}${name} = ${value}\n`;
    } else {
      run.push({ name, value });
    }
  }
}

function renderValue(value: HclValue, indent: string): string {
  if (value === null) return "null";
  if (typeof value === "string") return hclString(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`hcl number ${String(value)} is not valid: expected a finite number`);
    return String(value);
  }
  if (value instanceof HclExpression) return value.text;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = (value as ReadonlyArray<HclValue>).map((item) => renderValue(item, inner));
    if (!items.some((item) => item.includes("\n"))) return `[${items.join(", ")}]`;
    return `[\n${items.map((item) => `${inner}${item},\n`).join("")}${indent}]`;
  }
  const entries = Object.entries(value as Readonly<Record<string, HclValue>>);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([key, item]) => ({ name: objectKey(key), value: renderValue(item, inner) }));
  let text = "{\n";
  let run: typeof lines = [];
  const flush = () => {
    const width = Math.max(0, ...run.map((line) => line.name.length));
    for (const line of run) text += `${inner}${line.name.padEnd(width)} = ${line.value}\n`;
    run = [];
  };
  for (const line of lines) {
    if (line.value.includes("\n")) {
      flush();
      text += `${inner}${line.name} = ${line.value}\n`;
    } else {
      run.push(line);
    }
  }
  flush();
  return `${text}${indent}}`;
}

/**
 * An object's key: bare when it is an identifier that reads as itself, else quoted with every
 * character outside printable ASCII escaped, so that its width in columns is its length (fmt
 * aligns `=` by columns).
 */
function objectKey(key: string): string {
  if (isHclIdentifier(key) && !RESERVED_KEYS.has(key)) return key;
  return `"${literalText(key).replace(/[^\x20-\x7e]/gu, (character) => unicodeEscape(character))}"`;
}

function unicodeEscape(character: string): string {
  const code = character.codePointAt(0)!;
  return code > 0xffff ? `\\U${code.toString(16).padStart(8, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** The body of a quoted literal: escapes, and template sequences doubled. */
function literalText(text: string): string {
  return text
    .replace(/[\\"\u0000-\u001f\u007f]/g, (character) => ESCAPES[character] ?? unicodeEscape(character))
    .replace(/([$%])\{/g, "$1$1{");
}

const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
