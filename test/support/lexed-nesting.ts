import { Lexer } from "yaml";
import { MAX_NESTING_DEPTH } from "../../src/input-limits/nesting.js";

/**
 * The nesting count of src/input-limits/nesting.ts read from the yaml library's lexer instead of
 * the characters: the lexer tells quoted, plain and block scalars, comments, anchors, tags and
 * document markers apart, and yields the indicators (`[ { ] } , - ? :`); what is left here is the
 * block structure, which the lexer leaves to the parser: a block collection is known by the column
 * of its entries. A second reading of the same grammar for the tests and the nesting-scan bench
 * (test/bench/experiments/nesting-scan.ts), not the guard: it is an order of magnitude slower
 * (src/input-limits/nesting.ts says by how much).
 */

/** Control tokens the lexer yields that are not slices of the text (the yaml package's `tokenType` names them). */
const DOCUMENT = "\x02";
const FLOW_END = "\x18";
const SCALAR = "\x1f";

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const BANG = 0x21;
const HASH = 0x23;
const PERCENT = 0x25;
const AMPERSAND = 0x26;
const COMMA = 0x2c;
const DASH = 0x2d;
const COLON = 0x3a;
const GREATER = 0x3e;
const QUESTION = 0x3f;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const LBRACE = 0x7b;
const PIPE = 0x7c;
const RBRACE = 0x7d;

/** Kinds of open flow levels: a list, a mapping, and the single-pair mapping of a `key: value` entry of a list. */
const FLOW_LIST = 1;
const FLOW_MAP = 2;
const FLOW_PAIR = 3;

/** A node on the current line that a `:` would make the key of a block mapping: its column, offset, and the levels it holds. */
interface KeyCandidate {
  readonly column: number;
  readonly at: number;
  readonly inner: number;
}

/** The counting state over one text: open block and flow collections, and where the current line and node began. */
class NestingCount {
  readonly columns: number[] = [];
  readonly sequences: boolean[] = [];
  readonly flow: number[] = [];
  exceeded: number | undefined;
  /** Where the current line starts, and whether only spaces were seen on it so far. */
  lineStart = 0;
  lineFresh = true;
  /** Block: the column of the node being read (its anchor or tag first), -1 before one starts. */
  nodeColumn = -1;
  key: KeyCandidate | undefined;
  /** The flow collection that left block context: its column, offset, line and deepest level. */
  flowColumn = 0;
  flowAt = 0;
  flowLine = 0;
  flowPeak = 0;
  /** The next scalar token is a plain scalar, or a block scalar's content. */
  scalarNext = false;
  blockScalar = false;

  constructor(readonly limit: number) {}

  depth(): number {
    return this.columns.length + this.flow.length;
  }

  reset(): void {
    this.columns.length = 0;
    this.sequences.length = 0;
    this.flow.length = 0;
    this.nodeColumn = -1;
    this.key = undefined;
    this.blockScalar = false;
  }

  /** Opens a block collection at `column` (an entry of the one open there is none); `inner` levels of its first key count too. */
  openBlock(column: number, sequence: boolean, at: number, inner = 0): void {
    const { columns, sequences } = this;
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
    if (this.depth() + inner > this.limit) this.exceeded ??= at;
  }

  openFlow(kind: number, at: number): void {
    this.flow.push(kind);
    if (this.flow.length > this.flowPeak) this.flowPeak = this.flow.length;
    if (this.depth() > this.limit) this.exceeded ??= at;
  }

  /** The first content of a block line: the collections opened right of it have ended. */
  startLine(column: number): void {
    const { columns, sequences } = this;
    while (columns.length > 0 && columns[columns.length - 1]! > column) {
      columns.pop();
      sequences.pop();
    }
  }

  /** Reads one token found at offset `at`. */
  read(token: string, at: number): void {
    if (token === DOCUMENT) return;
    if (token === SCALAR) {
      this.scalarNext = true;
      return;
    }
    if (token === FLOW_END) {
      this.flow.length = 0;
      return;
    }
    const char = token.charCodeAt(0);
    const scalar = this.scalarNext;
    this.scalarNext = false;
    if (!scalar && (token === "---" || token === "...")) {
      this.reset();
      return;
    }
    if (!scalar && (token === "" || char === LF || (char === CR && token === "\r\n"))) {
      this.newLine(at + token.length);
      return;
    }
    if (!scalar && (char === SPACE || char === TAB)) return;
    if (this.blockScalar && scalar) {
      this.blockScalar = false;
      this.afterText(token, at);
      return;
    }
    if (this.flow.length > 0) this.readFlow(token, char, scalar, at);
    else this.readBlock(token, char, scalar, at);
    this.afterText(token, at);
  }

  /** A token that holds line breaks (a scalar over several lines) moves the line start. */
  afterText(token: string, at: number): void {
    const lastBreak = token.lastIndexOf("\n");
    if (lastBreak !== -1) this.newLine(at + lastBreak + 1);
  }

  /** A line starts at `at`: what was read on the line before cannot be a key any more. */
  newLine(at: number): void {
    this.lineStart = at;
    this.lineFresh = true;
    this.nodeColumn = -1;
    this.key = undefined;
  }

  /** Flow context: brackets open and close levels; a `:` or `?` in a list opens the single-pair mapping of its entry. */
  readFlow(token: string, char: number, scalar: boolean, at: number): void {
    const { flow } = this;
    if (scalar || token.length > 1) return;
    if (char === LBRACKET || char === LBRACE) this.openFlow(char === LBRACKET ? FLOW_LIST : FLOW_MAP, at);
    else if (char === RBRACKET || char === RBRACE) {
      if (flow[flow.length - 1] === FLOW_PAIR) flow.pop();
      flow.pop();
      if (flow.length === 0 && this.flowLine === this.lineStart) this.key = { column: this.flowColumn, at: this.flowAt, inner: this.flowPeak };
    } else if (char === COMMA) {
      if (flow[flow.length - 1] === FLOW_PAIR) flow.pop();
    } else if ((char === COLON || char === QUESTION) && flow[flow.length - 1] === FLOW_LIST) this.openFlow(FLOW_PAIR, at);
  }

  /** Block context: entries open collections at their columns; a node followed by `:` on its line is a key. */
  readBlock(token: string, char: number, scalar: boolean, at: number): void {
    const column = at - this.lineStart;
    if (!scalar && char === HASH) return;
    if (this.lineFresh) {
      this.lineFresh = false;
      // a directive (`%YAML 1.2`) before the document is not content
      const directive = !scalar && char === PERCENT && column === 0 && this.columns.length === 0;
      if (!directive) this.startLine(column);
    }
    if (this.nodeColumn === -1) this.nodeColumn = column;
    const indicator = !scalar && token.length === 1 && (char === DASH || char === QUESTION || char === COLON);
    if (indicator && char === COLON && this.key !== undefined) {
      // `key: value`: a mapping entry at the key's column
      this.openBlock(this.key.column, false, this.key.at, this.key.inner);
      this.key = undefined;
      this.nodeColumn = -1;
      return;
    }
    this.key = undefined;
    if (indicator) {
      // an anchor or tag before it belongs to the collection: `&a : value` is a mapping at the anchor
      this.openBlock(this.nodeColumn, char === DASH, at);
      this.nodeColumn = -1;
      return;
    }
    if (!scalar && (char === AMPERSAND || char === BANG)) return;
    if (!scalar && (char === PIPE || char === GREATER)) {
      this.blockScalar = true;
      return;
    }
    if (!scalar && (char === LBRACKET || char === LBRACE)) {
      this.flowColumn = column;
      this.flowAt = at;
      this.flowLine = this.lineStart;
      this.flowPeak = 0;
      this.openFlow(char === LBRACKET ? FLOW_LIST : FLOW_MAP, at);
      return;
    }
    // a plain, quoted or alias node: a key if a `:` follows on this line
    if (token.indexOf("\n") === -1) this.key = { column: this.nodeColumn, at, inner: 0 };
  }
}

/**
 * Where a YAML or JSON text (or its part `start`..`end`) first nests lists and mappings more than
 * `limit` deep: the offset of the token that opens level `limit + 1`; `undefined` when it does not.
 * The same answer as `excessiveNestingOffset` (src/input-limits/nesting.ts), from the yaml library's
 * lexer, which is iterative: no recursion per level.
 */
export function lexedNestingOffset(text: string, start = 0, end = text.length, limit = MAX_NESTING_DEPTH): number | undefined {
  const count = new NestingCount(limit);
  count.lineStart = start;
  let at = start;
  for (const token of new Lexer().lex(start === 0 && end === text.length ? text : text.slice(start, end))) {
    count.read(token, at);
    if (count.exceeded !== undefined) return count.exceeded;
    if (token !== DOCUMENT && token !== SCALAR && token !== FLOW_END) at += token.length;
  }
  return undefined;
}
