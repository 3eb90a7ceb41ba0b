/**
 * HPACK (RFC 7541), HTTP/2's header compression, as a gRPC server needs it: a decoder of every
 * header block a client may send (indexed fields, literals with and without indexing, the dynamic
 * table and its size updates, Huffman-coded strings), and an encoder of the few blocks the server
 * answers with, as literals that never touch the client's dynamic table.
 */

/** A header block the decoder cannot read: HTTP/2's COMPRESSION_ERROR, which ends the connection. */
export class HpackError extends Error {}

/** A header field as a block carries it: its name (lower case) and its value. */
export type HeaderField = readonly [name: string, value: string];

/** RFC 7541 Appendix A: the static table, index 1 first. */
const STATIC_TABLE: ReadonlyArray<HeaderField> = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/**
 * RFC 7541 Appendix B: the length in bits of each symbol's Huffman code (octets 0-255, then EOS).
 * The code is canonical (codes of one length are consecutive, in symbol order, after the shorter
 * ones), so the lengths alone give the codes (test/provider/runtime/hpack.test.ts checks them
 * against the RFC's examples).
 */
const HUFFMAN_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8,
  6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5, 6, 5,
  6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24,
  23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25,
  25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, 30,
];
const EOS = 256;
const LONGEST_CODE = 30;

/** The canonical code's decoding tables: per length, its first code, how many codes, and where its symbols start in `symbols`. */
const HUFFMAN = (() => {
  const symbols = HUFFMAN_LENGTHS.map((_, symbol) => symbol).sort((a, b) => HUFFMAN_LENGTHS[a]! - HUFFMAN_LENGTHS[b]! || a - b);
  const first = new Array<number>(LONGEST_CODE + 1).fill(0);
  const count = new Array<number>(LONGEST_CODE + 1).fill(0);
  const offset = new Array<number>(LONGEST_CODE + 1).fill(0);
  for (const length of HUFFMAN_LENGTHS) count[length]!++;
  let code = 0;
  let at = 0;
  for (let length = 1; length <= LONGEST_CODE; length++) {
    first[length] = code;
    offset[length] = at;
    code = (code + count[length]!) * 2;
    at += count[length]!;
  }
  return { symbols, first, count, offset };
})();

/** The Huffman code of each symbol, as (code, length): what the tests encode with. */
export function huffmanCode(symbol: number): { readonly code: number; readonly length: number } {
  const length = HUFFMAN_LENGTHS[symbol]!;
  return { code: HUFFMAN.first[length]! + HUFFMAN.symbols.indexOf(symbol) - HUFFMAN.offset[length]!, length };
}

/** Decodes a Huffman-coded string (its octets as latin1 characters). Throws HpackError on EOS inside it, or padding that is not the EOS's leading ones or longer than 7 bits. */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  const { symbols, first, count, offset } = HUFFMAN;
  let text = "";
  let code = 0;
  let length = 0;
  for (let index = start; index < end; index++) {
    const byte = bytes[index]!;
    for (let bit = 7; bit >= 0; bit--) {
      code = code * 2 + ((byte >> bit) & 1);
      length++;
      const rank = code - first[length]!;
      if (rank >= 0 && rank < count[length]!) {
        const symbol = symbols[offset[length]! + rank]!;
        if (symbol === EOS) throw new HpackError("a Huffman-coded string holds the EOS symbol");
        text += String.fromCharCode(symbol);
        code = 0;
        length = 0;
      } else if (length >= LONGEST_CODE) throw new HpackError("a Huffman-coded string holds no valid code");
    }
  }
  if (length > 7 || code !== 2 ** length - 1) throw new HpackError("a Huffman-coded string ends with padding that is not the EOS code's leading ones");
  return text;
}

/** The size an entry takes in a dynamic table (RFC 7541 section 4.1). */
function entrySize(name: string, value: string): number {
  return name.length + value.length + 32;
}

/**
 * One connection's decoder (its dynamic table lives as long as the connection: every block must
 * be decoded, in order, even those of streams the server refuses).
 */
export class HpackDecoder {
  /** Newest first. */
  readonly #table: HeaderField[] = [];
  #size = 0;
  #maxSize: number;

  /**
   * @param limit the table size the server allows (SETTINGS_HEADER_TABLE_SIZE: 4,096 unless it says otherwise)
   * @param maxListSize the largest header list it takes (names, values and 32 octets per field)
   */
  constructor(
    private readonly limit = 4_096,
    private readonly maxListSize = 65_536,
  ) {
    this.#maxSize = limit;
  }

  /** The fields of one complete header block. Throws HpackError on a block that is not valid HPACK. */
  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    let listSize = 0;
    const reader = { block, at: 0 };
    while (reader.at < block.length) {
      const byte = block[reader.at]!;
      let field: HeaderField;
      if (byte & 0x80) {
        field = this.#entry(readInteger(reader, 7));
      } else if (byte & 0x40) {
        field = this.#literal(reader, 6);
        this.#add(field);
      } else if (byte & 0x20) {
        if (fields.length > 0) throw new HpackError("a dynamic table size update comes after a header field");
        const size = readInteger(reader, 5);
        if (size > this.limit) throw new HpackError(`a dynamic table size update to ${size} octets exceeds the ${this.limit} this server allows`);
        this.#maxSize = size;
        this.#evict();
        continue;
      } else {
        // literal without indexing (0000) or never indexed (0001): the same to a decoder
        field = this.#literal(reader, 4);
      }
      listSize += entrySize(field[0], field[1]);
      if (listSize > this.maxListSize) throw new HpackError(`a header list exceeds ${this.maxListSize} octets`);
      fields.push(field);
    }
    return fields;
  }

  #entry(index: number): HeaderField {
    if (index === 0) throw new HpackError("an indexed header field has index 0");
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entry = this.#table[index - STATIC_TABLE.length - 1];
    if (entry === undefined) throw new HpackError(`an indexed header field has index ${index}, beyond the ${STATIC_TABLE.length + this.#table.length} entries of the tables`);
    return entry;
  }

  #literal(reader: BlockReader, prefix: number): HeaderField {
    const index = readInteger(reader, prefix);
    const name = index === 0 ? readString(reader) : this.#entry(index)[0];
    return [name, readString(reader)];
  }

  #add(field: HeaderField): void {
    const size = entrySize(field[0], field[1]);
    if (size > this.#maxSize) {
      // an entry larger than the table empties it (RFC 7541 section 4.4)
      this.#table.length = 0;
      this.#size = 0;
      return;
    }
    this.#table.unshift(field);
    this.#size += size;
    this.#evict();
  }

  #evict(): void {
    while (this.#size > this.#maxSize) {
      const oldest = this.#table.pop()!;
      this.#size -= entrySize(oldest[0], oldest[1]);
    }
  }
}

interface BlockReader {
  readonly block: Uint8Array;
  at: number;
}

/** An integer with an N-bit prefix (RFC 7541 section 5.1), at most 2^31 - 1. */
function readInteger(reader: BlockReader, prefix: number): number {
  const mask = 2 ** prefix - 1;
  let value = reader.block[reader.at++]! & mask;
  if (value < mask) return value;
  for (let shift = 0; ; shift += 7) {
    if (reader.at >= reader.block.length) throw new HpackError("a header block ends inside an integer");
    const byte = reader.block[reader.at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (value > 0x7fffffff) throw new HpackError("a header block holds an integer beyond 2^31 - 1");
    if ((byte & 0x80) === 0) return value;
  }
}

/** A string literal (RFC 7541 section 5.2), plain or Huffman-coded, its octets as latin1 characters. */
function readString(reader: BlockReader): string {
  if (reader.at >= reader.block.length) throw new HpackError("a header block ends before a string");
  const huffman = (reader.block[reader.at]! & 0x80) !== 0;
  const length = readInteger(reader, 7);
  const start = reader.at;
  const end = start + length;
  if (end > reader.block.length) throw new HpackError(`a header block ends inside a string of ${length} octets`);
  reader.at = end;
  return huffman ? huffmanDecode(reader.block, start, end) : Buffer.from(reader.block.buffer, reader.block.byteOffset + start, length).toString("latin1");
}

/**
 * A header block of `fields` as literals without indexing (RFC 7541 section 6.2.2), with a static
 * table entry's index for its name where it has one (and the entry itself where the value
 * matches): blocks that leave the client's dynamic table as it is, whatever size it has.
 */
export function encodeHeaders(fields: ReadonlyArray<HeaderField>): Buffer {
  const parts: number[] = [];
  for (const [name, value] of fields) {
    const exact = STATIC_TABLE.findIndex(([entryName, entryValue]) => entryName === name && entryValue === value);
    if (exact >= 0) {
      writeInteger(parts, exact + 1, 7, 0x80);
      continue;
    }
    const named = STATIC_TABLE.findIndex(([entryName]) => entryName === name);
    if (named >= 0) writeInteger(parts, named + 1, 4, 0x00);
    else {
      parts.push(0x00);
      writeString(parts, name);
    }
    writeString(parts, value);
  }
  return Buffer.from(parts);
}

function writeInteger(parts: number[], value: number, prefix: number, flags: number): void {
  const mask = 2 ** prefix - 1;
  if (value < mask) {
    parts.push(flags | value);
    return;
  }
  parts.push(flags | mask);
  let rest = value - mask;
  while (rest >= 0x80) {
    parts.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  parts.push(rest);
}

function writeString(parts: number[], text: string): void {
  const bytes = Buffer.from(text, "latin1");
  writeInteger(parts, bytes.length, 7, 0x00);
  for (const byte of bytes) parts.push(byte);
}
