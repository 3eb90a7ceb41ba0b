import { modelOf } from "./kinds/registry.js";
import { readKeyText } from "./read-key.js";
import type { TextRegion } from "./raw-document.js";
import { KINDS, type Document, type Kind } from "./schema.js";

/**
 * A document's read key found without parsing it, so that a drift shard can leave the documents of
 * other shards unparsed. Each kind's model names the fields its read key is made of (`api`;
 * `account` and `spec.type`; `account`); they are found in the document's lines when the document
 * is in the plain shape this scan reads exactly: a block mapping at column 0 whose keys are plain
 * words, with those fields written as one-line scalars (plain strings, or quoted without escapes),
 * `api` also as `{name: X}`, and `spec` as a block or one-line flow mapping. For anything else the
 * answer is "unknown" (undefined) and the document is parsed: an unknown key is never wrong. A
 * field that holds `${` may be a variable (docs/manual/desired-state.md, "Environments and
 * variables"): unknown too.
 */
export function scanReadKey(text: string, region: TextRegion): string | undefined {
  const source = text.slice(region.start, region.end);
  // the lines at column 0 (what is not blank, a comment or indented): the document's keys
  const entries = new Map<string, Entry>();
  let previous: Entry | undefined;
  for (const match of source.matchAll(/^[^ \t\r\n#].*$/gm)) {
    const line = match[0].endsWith("\r") ? match[0].slice(0, -1) : match[0];
    if (previous) previous.childrenEnd = match.index;
    previous = undefined;
    if (line.startsWith("---") && match.index === 0) {
      if (!/^---[ \t]*(?:#.*)?$/.test(line)) return undefined;
      continue;
    }
    if (/^\.\.\.[ \t]*(?:#.*)?$/.test(line)) continue; // the document end marker closing the region
    const entry = /^([A-Za-z][A-Za-z0-9_]*):(?:[ \t]+(.*))?$/.exec(line);
    if (!entry || entries.has(entry[1]!)) return undefined;
    previous = { source, inline: entry[2] ?? "", childrenStart: match.index + match[0].length, childrenEnd: source.length };
    entries.set(entry[1]!, previous);
  }
  const kindEntry = entries.get("kind");
  const kind = kindEntry && !hasChildren(kindEntry) ? plainOrQuoted(withoutComment(kindEntry.inline)) : undefined;
  if (kind === undefined || !(KINDS as ReadonlyArray<string>).includes(kind)) return undefined;
  const skeleton: Record<string, unknown> = { kind, spec: {} };
  for (const { path, optional } of modelOf(kind as Kind).readKeyFields) {
    const found = path.startsWith("spec.") ? specField(entries.get("spec"), path.slice(5)) : topLevelField(entries.get(path), path);
    if (found === UNKNOWN || (found === undefined && !optional)) return undefined;
    if (found === undefined) continue;
    if (path.startsWith("spec.")) (skeleton.spec as Record<string, unknown>)[path.slice(5)] = found;
    else skeleton[path] = found;
  }
  return readKeyText(modelOf(kind as Kind).readKey(skeleton as unknown as Document));
}

/** A key at column 0: the rest of its line, and where the lines below it (its block) start and end. */
interface Entry {
  readonly source: string;
  readonly inline: string;
  readonly childrenStart: number;
  childrenEnd: number;
}

/** The lines of an entry's block that hold something (not blank, not a comment). */
function childLines(entry: Entry): string[] {
  return entry.source
    .slice(entry.childrenStart, entry.childrenEnd)
    .split("\n")
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
    .filter((line) => !/^[ \t]*(?:#.*)?$/.test(line));
}

function hasChildren(entry: Entry): boolean {
  return /\S/.test(entry.source.slice(entry.childrenStart, entry.childrenEnd).replace(/^[ \t]*#.*$/gm, ""));
}

/**
 * The read key of a document already parsed to a plain value (a JSON file's), when the fields its
 * kind's read key is made of have the types they must have; undefined otherwise (validate it to know).
 */
export function readKeyOfValue(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const kind = record.kind;
  if (typeof kind !== "string" || !(KINDS as ReadonlyArray<string>).includes(kind)) return undefined;
  const spec = record.spec;
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) return undefined;
  for (const { path, optional } of modelOf(kind as Kind).readKeyFields) {
    const found = path.startsWith("spec.") ? (spec as Record<string, unknown>)[path.slice(5)] : record[path];
    const isName = path === "api" && found !== null && typeof found === "object" && !Array.isArray(found)
      && Object.keys(found).length === 1 && typeof (found as { name?: unknown }).name === "string";
    if (found === undefined ? !optional : typeof found !== "string" && !isName) return undefined;
    // a variable's value is known only once substituted (src/desired/substitute-variables.ts)
    if (holdsReference(isName ? (found as { name: string }).name : found)) return undefined;
  }
  return readKeyText(modelOf(kind as Kind).readKey(record as unknown as Document));
}

const UNKNOWN = Symbol("unknown");

/** A top-level field: absent, a one-line string, or (`api`) `{name: X}` on its line or as a block of one `name:` line. */
function topLevelField(entry: Entry | undefined, field: string): unknown {
  if (!entry) return undefined;
  const inline = withoutComment(entry.inline);
  if (inline === "") {
    if (field !== "api") return UNKNOWN;
    const children = childLines(entry);
    const name = children.length === 1 ? /^ +name:[ \t]+(.*)$/.exec(children[0]!) : null;
    const value = name ? plainOrQuoted(withoutComment(name[1]!)) : undefined;
    return value === undefined ? UNKNOWN : { name: value };
  }
  if (hasChildren(entry)) return UNKNOWN; // a value continued on the next lines
  if (field === "api" && inline.startsWith("{")) {
    const name = /^\{[ \t]*name[ \t]*:[ \t]+([^,{}[\]]*?)[ \t]*\}$/.exec(inline);
    const value = name ? plainOrQuoted(name[1]!) : undefined;
    return value === undefined ? UNKNOWN : { name: value };
  }
  return plainOrQuoted(inline) ?? UNKNOWN;
}

/** A field of `spec`, written as a block mapping, or as a flow mapping on the `spec:` line. */
function specField(entry: Entry | undefined, field: string): unknown {
  if (!entry) return UNKNOWN;
  const inline = withoutComment(entry.inline);
  if (inline !== "") {
    if (hasChildren(entry)) return UNKNOWN;
    return flowMappingField(inline, field);
  }
  const children = childLines(entry);
  if (children.length === 0) return UNKNOWN;
  const indent = /^ */.exec(children[0]!)![0].length;
  let found: unknown;
  for (const line of children) {
    const lineIndent = /^ */.exec(line)![0].length;
    if (line[lineIndent] === "\t" || lineIndent < indent) return UNKNOWN;
    if (lineIndent > indent) continue; // inside a value: a nested block, or a block scalar's lines
    const pair = /^([A-Za-z][A-Za-z0-9_]*):(?:[ \t]+(.*))?$/.exec(line.slice(indent));
    if (!pair) return UNKNOWN;
    const value = withoutComment(pair[2] ?? "");
    // a quoted value left open on its line continues below, where a line could pass for a key
    if (/^["']/.test(value) && plainOrQuoted(value) === undefined) return UNKNOWN;
    if (pair[1] === field) {
      if (found !== undefined) return UNKNOWN;
      found = plainOrQuoted(value) ?? UNKNOWN;
    }
  }
  return found;
}

/** A field of a one-line flow mapping `{a: x, b: "y"}` whose values are plain or quoted without escapes. */
function flowMappingField(text: string, field: string): unknown {
  if (!text.startsWith("{") || !text.endsWith("}")) return UNKNOWN;
  const body = text.slice(1, -1);
  let found: unknown;
  let at = 0;
  while (at < body.length) {
    const pair = /^[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*:[ \t]+/.exec(body.slice(at));
    if (!pair) return /^[ \t]*$/.test(body.slice(at)) ? found : UNKNOWN;
    at += pair[0].length;
    let value: string;
    if (body[at] === '"' || body[at] === "'") {
      const end = body.indexOf(body[at]!, at + 1);
      if (end === -1) return UNKNOWN;
      value = body.slice(at, end + 1);
      at = end + 1;
    } else {
      const end = body.slice(at).search(/[,{}[\]"']/);
      value = (end === -1 ? body.slice(at) : body.slice(at, at + end)).trim();
      at = end === -1 ? body.length : at + end;
    }
    if (pair[1] === field) {
      if (found !== undefined) return UNKNOWN;
      found = plainOrQuoted(value) ?? UNKNOWN;
    }
    const rest = /^[ \t]*(,|$)/.exec(body.slice(at));
    if (!rest) return UNKNOWN;
    at += rest[0].length;
  }
  return found;
}

/** A value with a trailing ` # comment` removed (a `#` inside a quoted value is not one: such values are refused below). */
function withoutComment(text: string): string {
  const comment = text.search(/[ \t]#/);
  return (comment === -1 ? text : text.slice(0, comment)).trim();
}

/**
 * The string a one-line scalar reads as, when it certainly is a string: double- or single-quoted
 * without escapes, or plain of letters, digits and `._/@+-`, not starting with what could make YAML
 * read a number, a boolean or null (those are left unknown; their documents are parsed).
 */
function plainOrQuoted(text: string): string | undefined {
  if (holdsReference(text)) return undefined;
  const quoted = /^"([^"\\]*)"$/.exec(text) ?? /^'([^']*)'$/.exec(text);
  if (quoted) return quoted[1]!;
  if (!/^[A-Za-z][A-Za-z0-9._/@+-]*$/.test(text)) return undefined;
  if (/^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/.test(text)) return undefined;
  return text;
}

/** Whether a value may hold a variable (`${var.…}`, or text like it): its read key is then known only once parsed and substituted. */
function holdsReference(value: unknown): boolean {
  return typeof value === "string" && value.includes("${");
}
