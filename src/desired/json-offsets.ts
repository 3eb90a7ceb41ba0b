/**
 * Where values stand in a JSON text that JSON.parse accepted, found by scanning the text without
 * building values (no recursion, no allocation but the keys compared): so that a large file is
 * parsed once by JSON.parse, and the places of its values are found only when asked for.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The offset of the first character at or after `at` that is not JSON whitespace. */
export function skipWhitespace(text: string, at: number): number {
  let offset = at;
  for (;;) {
    const char = text.charCodeAt(offset);
    if (char !== 0x20 && char !== 0x0a && char !== 0x0d && char !== 0x09) return offset;
    offset += 1;
  }
}

/** The offset just after the string that opens at `at` (its opening quote). */
function stringEnd(text: string, at: number): number {
  let offset = at + 1;
  for (;;) {
    const quote = text.indexOf('"', offset);
    if (quote === -1) return text.length;
    // a quote preceded by an odd number of backslashes is escaped
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    offset = quote + 1;
  }
}

/** The offset just after the value that starts at `at` (a string, a number, a literal, an object or an array). */
export function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== LBRACE && first !== LBRACKET) {
    let offset = at;
    for (;;) {
      const char = text.charCodeAt(offset);
      if (Number.isNaN(char) || char === COMMA || char === RBRACE || char === RBRACKET || char <= 0x20) return offset;
      offset += 1;
    }
  }
  let depth = 0;
  let offset = at;
  for (;;) {
    const char = text.charCodeAt(offset);
    if (Number.isNaN(char)) return text.length;
    if (char === QUOTE) {
      offset = stringEnd(text, offset);
      continue;
    }
    if (char === LBRACE || char === LBRACKET) depth += 1;
    else if (char === RBRACE || char === RBRACKET) {
      depth -= 1;
      if (depth === 0) return offset + 1;
    }
    offset += 1;
  }
}

/** The members of the object that opens at `at`: each key and where its value starts, in order. */
export function* objectMembers(text: string, at: number): Generator<{ readonly key: string; readonly value: number }> {
  let offset = skipWhitespace(text, at + 1);
  if (text.charCodeAt(offset) === RBRACE) return;
  for (;;) {
    const keyEnd = stringEnd(text, offset);
    const raw = text.slice(offset + 1, keyEnd - 1);
    const key = raw.includes("\\") ? (JSON.parse(text.slice(offset, keyEnd)) as string) : raw;
    offset = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(offset) !== COLON) return;
    const value = skipWhitespace(text, offset + 1);
    yield { key, value };
    offset = skipWhitespace(text, valueEnd(text, value));
    if (text.charCodeAt(offset) !== COMMA) return;
    offset = skipWhitespace(text, offset + 1);
  }
}

/** Where the items of the array that opens at `at` start, in order. */
export function* arrayItems(text: string, at: number): Generator<number> {
  let offset = skipWhitespace(text, at + 1);
  if (text.charCodeAt(offset) === RBRACKET) return;
  for (;;) {
    yield offset;
    offset = skipWhitespace(text, valueEnd(text, offset));
    if (text.charCodeAt(offset) !== COMMA) return;
    offset = skipWhitespace(text, offset + 1);
  }
}

/**
 * Where the value at `path` starts, searched from the value at `from` (the root's by default): the
 * deepest value of the path that exists (its parent's when a key or index is absent).
 */
export function offsetOfJsonPath(text: string, path: ReadonlyArray<PropertyKey>, from = skipWhitespace(text, 0)): number {
  let offset = from;
  for (const part of path) {
    const char = text.charCodeAt(offset);
    let found: number | undefined;
    if (char === LBRACE) {
      for (const member of objectMembers(text, offset)) {
        if (member.key === String(part)) {
          found = member.value;
          break;
        }
      }
    } else if (char === LBRACKET && typeof part === "number") {
      let index = 0;
      for (const item of arrayItems(text, offset)) {
        if (index === part) {
          found = item;
          break;
        }
        index += 1;
      }
    }
    if (found === undefined) return offset;
    offset = found;
  }
  return offset;
}
