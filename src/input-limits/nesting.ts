/**
 * How deeply the JSON and YAML converge reads may nest lists and mappings (docs/manual/desired-state.md, "Desired-state
 * documents"), and the scan that checks it before any parser sees the text: JSON.parse, js-yaml,
 * the yaml library, jsonc-parser and zod all recurse once per level, and exhaust the stack long
 * before the file size limit does (`[` 100,000 times is 100 KB).
 *
 * Why a hand-written scanner and not the yaml library's lexer (issue 33): the same count read from
 * the lexer's tokens (test/support/lexed-nesting.ts) gives the same answer on every generated
 * document (test/input-limits/nesting-against-lexer.test.ts) but costs an order of magnitude more.
 * Alone, on the 4,640-document estate (`BENCH_CASES=nesting-scan BENCH_ROUNDS=7 npm run bench`,
 * 2026-11-26, a loaded 2-core VM, medians): 1.06 MB of YAML 37 ms here against 424 ms (11.4×),
 * 1.53 MB of JSON 31 ms against 401 ms (12.9×; jsonc-parser's scanner 51 ms, 1.6×). End to end,
 * `converge validate` built both ways and run alternately in the same rounds (7 rounds, the
 * estates of `BENCH_CASES=validate-estate`): 4,640 documents 3,003 ms against 3,633 ms (1.20×,
 * median of per-round ratios), 46,400 documents 8,048 ms against 13,219 ms (1.66×, slower in
 * every round). The lexer yields every token as a string through a generator; this scan only
 * looks at the characters that can change the depth.
 */

/**
 * The deepest nesting of lists and mappings converge reads: a desired-state document needs 5 levels
 * (a root list of documents, the document, its spec, responseParameters, one status code's map), the
 * plan files and drift reports converge writes 7 to 9; the first parser to run out of stack (the
 * yaml library) does so near 790. Below js-yaml's own limit (100 levels), so that the fast parser
 * never refuses a text this scan lets through.
 */
export const MAX_NESTING_DEPTH = 64;

/**
 * The problem of a text that nests too deeply, without its place: what was found, what was
 * expected. `how` qualifies it (" once its YAML aliases are expanded").
 */
export function nestingProblem(how = ""): string {
  return `nested too deeply${how}: a list or mapping opens at level ${MAX_NESTING_DEPTH + 1}; `
    + `expected lists and mappings nested at most ${MAX_NESTING_DEPTH} levels deep`;
}

/** A JSON text refused by {@link parseJsonWithinDepth}: where the excess begins (1-based), and the problem. */
export class NestingError extends Error {
  readonly line: number;
  readonly column: number;
  readonly problem = nestingProblem();

  constructor(line: number, column: number) {
    super("");
    this.message = `line ${line}, column ${column}: ${this.problem}`;
    this.name = "NestingError";
    this.line = line;
    this.column = column;
  }
}

/**
 * JSON.parse of a text that nests at most MAX_NESTING_DEPTH deep (every value it gives can then be
 * walked recursively); throws a {@link NestingError} otherwise, and JSON.parse's SyntaxError as before.
 */
export function parseJsonWithinDepth(text: string): unknown {
  const offset = excessiveNestingOffset(text);
  if (offset !== undefined) {
    const before = text.slice(0, offset);
    const lineStart = before.lastIndexOf("\n") + 1;
    let line = 1;
    for (let at = before.indexOf("\n"); at !== -1; at = before.indexOf("\n", at + 1)) line += 1;
    throw new NestingError(line, offset - lineStart + 1);
  }
  return JSON.parse(text);
}

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const BANG = 0x21;
const DQUOTE = 0x22;
const HASH = 0x23;
const PERCENT = 0x25;
const AMPERSAND = 0x26;
const SQUOTE = 0x27;
const COMMA = 0x2c;
const DASH = 0x2d;
const DOT = 0x2e;
const COLON = 0x3a;
const GREATER = 0x3e;
const QUESTION = 0x3f;
const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const PIPE = 0x7c;
const RBRACE = 0x7d;
const BOM = 0xfeff;

/** Kinds of open flow levels: a list, a mapping, and the single-pair mapping of a `key: value` entry of a list. */
const FLOW_LIST = 1;
const FLOW_MAP = 2;
const FLOW_PAIR = 3;

/** The characters that may end a run of plain text in flow context (the ASCII ones; the others never do). */
const FLOW_SPECIAL = new Uint8Array(0x80);
for (const char of " \t\r\n[]{},:#\"'&!?") FLOW_SPECIAL[char.charCodeAt(0)] = 1;

function isSpace(char: number): boolean {
  return char === SPACE || char === TAB;
}

function isBlank(char: number): boolean {
  return char === SPACE || char === TAB || char === CR || char === LF || Number.isNaN(char);
}

function isFlowIndicator(char: number): boolean {
  return char === COMMA || char === LBRACKET || char === RBRACKET || char === LBRACE || char === RBRACE;
}

/**
 * Where a YAML or JSON text (or its part `start`..`end`) first nests lists and mappings more than
 * `limit` deep: the offset of the indicator that opens level `limit + 1`; `undefined` when it does
 * not. One pass, no recursion: flow collections (`[`, `{`, and the single-pair mapping `[a: b]`
 * makes) are counted by their brackets outside quoted scalars, comments and block scalars; block
 * collections by the columns of their entries (`- `, `? `, `key: `, several on one line for the
 * compact forms `- - x`, `- key: x`). On JSON that JSON.parse accepts the count is exact; on YAML
 * it follows the grammar closely enough for the documents anyone writes, and a parser that still
 * recursed too deeply (on text no YAML parser accepts) is caught by the loader's other guards.
 */
export function excessiveNestingOffset(text: string, start = 0, end = text.length, limit = MAX_NESTING_DEPTH): number | undefined {
  /** Open block collections: their columns, and whether each is a sequence. */
  const columns: number[] = [];
  const sequences: boolean[] = [];
  /** Open flow levels, innermost last (FLOW_LIST, FLOW_MAP, FLOW_PAIR). */
  const flow: number[] = [];
  /** A quoted scalar continues on the next line: its quote character (0: none). */
  let quote: 0 | typeof DQUOTE | typeof SQUOTE = 0;
  /** A plain scalar may continue on the next line. */
  let plain = false;
  /** Flow: a node may start here (after `[`, `{`, `,`, `: `), so a quote opens a quoted scalar. */
  let nodeStart = false;
  /** Flow: a quoted scalar or a collection just ended, so a `:` right after it is a value indicator. */
  let jsonLike = false;
  /** A block scalar is open: the column of its collection, and its content's indentation (-1 until its first line). */
  let scalarParent: number | undefined;
  let scalarIndent = -1;
  /** Where the flow collection that left block context began, for a `[a, b]: value` key. */
  let flowColumn = 0;
  let exceeded: number | undefined;

  const depth = () => columns.length + flow.length;
  /** Opens a block collection at `column` (an entry of the one open there is none); `inner` levels of its first key count too. */
  const openBlock = (column: number, sequence: boolean, at: number, inner = 0): void => {
    let top = columns.length - 1;
    if (top >= 0 && columns[top] === column) {
      if (sequences[top] === sequence) return;
      if (sequences[top] && !sequence) {
        // a key of the mapping a zero-indented sequence is the value of: the sequence ended
        columns.pop();
        sequences.pop();
        top -= 1;
        if (top >= 0 && columns[top] === column && !sequences[top]) return;
      }
    }
    columns.push(column);
    sequences.push(sequence);
    if (depth() + inner > limit) exceeded ??= at;
  };
  /** How deep the flow collection that left block context went (it may turn out to be a key: `[a, [b]]: value`). */
  let flowPeak = 0;
  const openFlow = (kind: number, at: number): void => {
    flow.push(kind);
    if (flow.length > flowPeak) flowPeak = flow.length;
    if (depth() > limit) exceeded ??= at;
  };

  /**
   * The next quote character at or after `at`, remembered: the lines of a quoted scalar that spans
   * many ask for the same far quote, and searching again from each line would cost their square.
   */
  const quoteFound = { [DQUOTE]: { from: 0, at: -2 }, [SQUOTE]: { from: 0, at: -2 } };
  const nextQuote = (char: typeof DQUOTE | typeof SQUOTE, at: number): number => {
    const known = quoteFound[char];
    if (at < known.from || (known.at !== -1 && at > known.at)) {
      known.from = at;
      known.at = text.indexOf(char === DQUOTE ? '"' : "'", at);
    }
    return known.at;
  };
  /** The offset after the quote that closes a quoted scalar opened before `at`, or -1 when the line ends first. */
  const closeQuote = (at: number, lineEnd: number, char: typeof DQUOTE | typeof SQUOTE): number => {
    for (;;) {
      const found = nextQuote(char, at);
      if (found === -1 || found >= lineEnd) return -1;
      if (char === SQUOTE) {
        if (text.charCodeAt(found + 1) === SQUOTE && found + 1 < lineEnd) {
          at = found + 2;
          continue;
        }
        return found + 1;
      }
      let backslashes = 0;
      while (text.charCodeAt(found - 1 - backslashes) === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return found + 1;
      at = found + 1;
    }
  };

  /** Scans flow context from `at` to the end of the line, or until the outermost collection closes; returns where it stopped. */
  const scanFlow = (at: number, lineEnd: number): number => {
    while (at < lineEnd && flow.length > 0 && exceeded === undefined) {
      const char = text.charCodeAt(at);
      if (isSpace(char) || char === CR) {
        at += 1;
        if (text.charCodeAt(at) === HASH) return lineEnd;
        continue;
      }
      if (char === LBRACKET || char === LBRACE) {
        openFlow(char === LBRACKET ? FLOW_LIST : FLOW_MAP, at);
        plain = false;
        nodeStart = true;
        jsonLike = false;
        at += 1;
        continue;
      }
      if (char === RBRACKET || char === RBRACE) {
        if (flow[flow.length - 1] === FLOW_PAIR) flow.pop();
        flow.pop();
        plain = false;
        nodeStart = false;
        jsonLike = true;
        at += 1;
        continue;
      }
      if (char === COMMA) {
        if (flow[flow.length - 1] === FLOW_PAIR) flow.pop();
        plain = false;
        nodeStart = true;
        jsonLike = false;
        at += 1;
        continue;
      }
      const next = text.charCodeAt(at + 1);
      const indicator = at + 1 >= lineEnd || isBlank(next) || isFlowIndicator(next);
      if ((char === COLON && (jsonLike || indicator)) || (char === QUESTION && nodeStart && indicator)) {
        // a value (or explicit key) of a list's entry makes that entry a mapping of its own
        if (flow[flow.length - 1] === FLOW_LIST) openFlow(FLOW_PAIR, at);
        plain = false;
        nodeStart = true;
        jsonLike = false;
        at += 1;
        continue;
      }
      if (nodeStart && !plain && (char === DQUOTE || char === SQUOTE)) {
        const after = closeQuote(at + 1, lineEnd, char);
        if (after === -1) {
          quote = char;
          return lineEnd;
        }
        at = after;
        nodeStart = false;
        jsonLike = true;
        continue;
      }
      if (nodeStart && !plain && (char === AMPERSAND || char === BANG)) {
        // an anchor or a tag: the node itself follows
        while (at < lineEnd && !isBlank(text.charCodeAt(at)) && !isFlowIndicator(text.charCodeAt(at))) at += 1;
        continue;
      }
      plain = true;
      nodeStart = false;
      jsonLike = false;
      at += 1;
      for (let char = text.charCodeAt(at); at < lineEnd && (char >= 0x80 || FLOW_SPECIAL[char] === 0); char = text.charCodeAt(at)) at += 1;
    }
    return at;
  };

  /** Scans block context from a place where a node may start, to the end of the line. */
  const scanBlock = (at: number, lineStart: number, lineEnd: number): void => {
    let nodeColumn = -1;
    while (exceeded === undefined) {
      while (at < lineEnd && isSpace(text.charCodeAt(at))) at += 1;
      if (at >= lineEnd) return;
      const char = text.charCodeAt(at);
      const column = at - lineStart;
      if (nodeColumn === -1) nodeColumn = column;
      if (char === HASH || char === CR) return;
      if ((char === DASH || char === QUESTION || char === COLON) && isBlank(at + 1 < lineEnd ? text.charCodeAt(at + 1) : Number.NaN)) {
        // an anchor or tag before it belongs to the collection: `&a : value` is a mapping at the anchor
        openBlock(nodeColumn, char === DASH, at);
        nodeColumn = -1;
        at += 1;
        continue;
      }
      if (char === AMPERSAND || char === BANG) {
        while (at < lineEnd && !isBlank(text.charCodeAt(at))) at += 1;
        continue;
      }
      if (char === PIPE || char === GREATER) {
        // a block scalar: its lines are text, however they look
        scalarParent = columns.length > 0 ? columns[columns.length - 1]! : -1;
        const indicator = /^[|>][+-]?([1-9])?/.exec(text.slice(at, Math.min(at + 3, lineEnd)))?.[1];
        scalarIndent = indicator === undefined ? -1 : scalarParent + Number(indicator);
        return;
      }
      let after: number;
      let inner = 0;
      if (char === LBRACKET || char === LBRACE) {
        flowColumn = column;
        flowPeak = 0;
        openFlow(char === LBRACKET ? FLOW_LIST : FLOW_MAP, at);
        plain = false;
        nodeStart = true;
        jsonLike = false;
        after = scanFlow(at + 1, lineEnd);
        if (flow.length > 0 || quote !== 0) return;
        nodeColumn = flowColumn;
        inner = flowPeak;
      } else if (char === DQUOTE || char === SQUOTE) {
        after = closeQuote(at + 1, lineEnd, char);
        if (after === -1) {
          quote = char;
          return;
        }
      } else {
        // a plain scalar (or an alias): to a comment, a `: ` that makes it a key, or the end of the line
        after = at + 1;
        for (; after < lineEnd; after += 1) {
          const inner = text.charCodeAt(after);
          if (inner === COLON && isBlank(after + 1 < lineEnd ? text.charCodeAt(after + 1) : Number.NaN)) break;
          if (inner === HASH && isSpace(text.charCodeAt(after - 1))) return;
        }
        if (after >= lineEnd) {
          plain = true;
          return;
        }
      }
      while (after < lineEnd && isSpace(text.charCodeAt(after))) after += 1;
      if (after >= lineEnd || text.charCodeAt(after) !== COLON || !isBlank(after + 1 < lineEnd ? text.charCodeAt(after + 1) : Number.NaN)) return;
      // `key: value`: a mapping entry at the key's column; its value may follow on this line
      openBlock(nodeColumn, false, at, inner);
      nodeColumn = -1;
      at = after + 1;
    }
  };

  let lineStart = start;
  while (lineStart < end && exceeded === undefined) {
    // a byte order mark may open a line (a document); anywhere else it is text
    if (text.charCodeAt(lineStart) === BOM) lineStart += 1;
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd === -1 || lineEnd > end) lineEnd = end;
    const next = lineEnd + 1;
    // a document marker ends whatever was open, a flow collection too (the yaml library closes it
    // there; js-yaml refuses the text), so that a text is counted as its documents one by one
    const first = text.charCodeAt(lineStart);
    if ((first === DASH || first === DOT) && text.startsWith(first === DASH ? "---" : "...", lineStart)
      && isBlank(lineStart + 3 < lineEnd ? text.charCodeAt(lineStart + 3) : Number.NaN)) {
      columns.length = 0;
      sequences.length = 0;
      flow.length = 0;
      quote = 0;
      plain = false;
      scalarParent = undefined;
      if (first === DASH) scanBlock(lineStart + 3, lineStart, lineEnd);
      lineStart = next;
      continue;
    }
    let at = lineStart;
    if (quote !== 0) {
      at = closeQuote(lineStart, lineEnd, quote);
      if (at === -1) {
        lineStart = next;
        continue;
      }
      quote = 0;
      nodeStart = false;
      jsonLike = true;
      if (flow.length > 0) scanFlow(at, lineEnd);
      // what follows a quoted scalar that spans lines is a comment, or an error
      lineStart = next;
      continue;
    }
    while (at < lineEnd && text.charCodeAt(at) === SPACE) at += 1;
    const indent = at - lineStart;
    while (at < lineEnd && isSpace(text.charCodeAt(at))) at += 1;
    const blank = at >= lineEnd || text.charCodeAt(at) === CR;
    if (scalarParent !== undefined) {
      if (blank) {
        lineStart = next;
        continue;
      }
      if (scalarIndent === -1 && indent > scalarParent) scalarIndent = indent;
      if (scalarIndent !== -1 && indent >= scalarIndent) {
        lineStart = next;
        continue;
      }
      scalarParent = undefined;
    }
    if (blank) {
      lineStart = next;
      continue;
    }
    if (text.charCodeAt(at) === HASH) {
      plain = false;
      lineStart = next;
      continue;
    }
    if (flow.length > 0) {
      scanFlow(at, lineEnd);
    } else if (plain && indent > (columns.length > 0 ? columns[columns.length - 1]! : -1) && !/:(?:[ \t\r]|$)/.test(text.slice(at, lineEnd))) {
      // the next line of a plain scalar (a `: ` in it is read as structure, as the yaml library
      // reads it): text; a comment ends it
      if (/[ \t]#/.test(text.slice(at, lineEnd))) plain = false;
    } else if (!(indent === 0 && first === PERCENT && columns.length === 0)) {
      plain = false;
      while (columns.length > 0 && columns[columns.length - 1]! > indent) {
        columns.pop();
        sequences.pop();
      }
      scanBlock(at, lineStart, lineEnd);
    }
    lineStart = next;
  }
  return exceeded;
}
