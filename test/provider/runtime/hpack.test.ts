import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeHeaders, HpackDecoder, HpackError, huffmanCode, huffmanDecode, type HeaderField } from "../../../src/provider/runtime/hpack.js";

const seed = process.env.CONVERGE_PROPERTY_SEED === undefined ? undefined : Number(process.env.CONVERGE_PROPERTY_SEED);

/** Huffman-codes latin1 text with the decoder's own table, padded with the EOS code's leading ones. */
function huffmanEncode(text: string): Buffer {
  const bytes: number[] = [];
  let bits = 0;
  let count = 0;
  for (const char of text) {
    const { code, length } = huffmanCode(char.charCodeAt(0));
    for (let bit = length - 1; bit >= 0; bit--) {
      bits = bits * 2 + (Math.floor(code / 2 ** bit) % 2);
      if (++count === 8) {
        bytes.push(bits);
        bits = 0;
        count = 0;
      }
    }
  }
  if (count > 0) bytes.push(bits * 2 ** (8 - count) + (2 ** (8 - count) - 1));
  return Buffer.from(bytes);
}

describe("HPACK", () => {
  it("has RFC 7541's Huffman code: a complete prefix code with the appendix's codes", () => {
    let kraft = 0;
    for (let symbol = 0; symbol <= 256; symbol++) kraft += 2 ** -huffmanCode(symbol).length;
    expect(kraft).toBe(1);
    expect(huffmanCode(0)).toEqual({ code: 0x1ff8, length: 13 });
    expect(huffmanCode(10)).toEqual({ code: 0x3ffffffc, length: 30 });
    expect(huffmanCode(" ".charCodeAt(0))).toEqual({ code: 0x14, length: 6 });
    expect(huffmanCode("0".charCodeAt(0))).toEqual({ code: 0x0, length: 5 });
    expect(huffmanCode("z".charCodeAt(0))).toEqual({ code: 0x7b, length: 7 });
    expect(huffmanCode(255)).toEqual({ code: 0x3ffffee, length: 26 });
    expect(huffmanCode(256)).toEqual({ code: 0x3fffffff, length: 30 });
  });

  /** RFC 7541 Appendix C.3 and C.4: three requests on one connection, without and with Huffman coding. */
  const REQUESTS: ReadonlyArray<{ name: string; blocks: ReadonlyArray<string> }> = [
    { name: "without Huffman coding (C.3)", blocks: ["828684410f7777772e6578616d706c652e636f6d", "828684be58086e6f2d6361636865", "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565"] },
    { name: "with Huffman coding (C.4)", blocks: ["828684418cf1e3c2e5f23a6ba0ab90f4ff", "828684be5886a8eb10649cbf", "828785bf408825a849e95ba97d7f8925a849e95bb8e8b4bf"] },
  ];
  const EXPECTED: ReadonlyArray<ReadonlyArray<HeaderField>> = [
    [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ],
    [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ],
    [
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ],
  ];
  for (const { name, blocks } of REQUESTS) {
    it(`decodes the RFC's requests ${name}, its dynamic table carried from block to block`, () => {
      const decoder = new HpackDecoder();
      blocks.forEach((hex, index) => expect(decoder.decode(Buffer.from(hex, "hex"))).toEqual(EXPECTED[index]));
    });
  }

  it("decodes any latin1 text Huffman-coded, and the same text plain", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((code) => String.fromCharCode(code)), maxLength: 60 }), (text) => {
        const coded = huffmanEncode(text);
        expect(huffmanDecode(coded, 0, coded.length)).toBe(text);
        const decoder = new HpackDecoder();
        expect(decoder.decode(encodeHeaders([["x-text", text]]))).toEqual([["x-text", text]]);
      }),
      { numRuns: 2_000, seed },
    );
  });

  it("evicts the oldest entries beyond the table's size, and empties it on a size update to 0", () => {
    const decoder = new HpackDecoder(100);
    // literal with incremental indexing, new names: a (1 + 10 + 32 = 43 octets), then b, then c
    const add = (name: string, value: string) => Buffer.concat([Buffer.from([0x40, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
    decoder.decode(Buffer.concat([add("a", "aaaaaaaaaa"), add("b", "bbbbbbbbbb"), add("c", "cccccccccc")]));
    expect(decoder.decode(Buffer.from([0x80 | 62, 0x80 | 63]))).toEqual([
      ["c", "cccccccccc"],
      ["b", "bbbbbbbbbb"],
    ]);
    expect(() => decoder.decode(Buffer.from([0x80 | 64]))).toThrow(HpackError);
    decoder.decode(Buffer.from([0x20]));
    expect(() => decoder.decode(Buffer.from([0x80 | 62]))).toThrow(/beyond the 61 entries/);
  });

  const REFUSED: ReadonlyArray<{ name: string; hex: string; message: RegExp }> = [
    { name: "index 0", hex: "80", message: /index 0/ },
    { name: "an index beyond both tables", hex: "be", message: /index 62, beyond the 61 entries/ },
    { name: "an integer beyond 2^31 - 1", hex: "ffffffffff0f", message: /beyond 2\^31 - 1/ },
    { name: "a block that ends inside an integer", hex: "ff80", message: /ends inside an integer/ },
    { name: "a string longer than the block", hex: "400561", message: /ends inside a string of 5 octets/ },
    { name: "a table size update beyond the allowed size", hex: "3fe21f", message: /4097 octets exceeds the 4096/ },
    { name: "a table size update after a field", hex: "8220", message: /size update comes after a header field/ },
    { name: "a Huffman string holding EOS", hex: "0084ffffffff", message: /holds the EOS symbol/ },
    { name: "Huffman padding that is not ones", hex: "008100", message: /padding/ },
    { name: "Huffman padding of 8 bits or more", hex: "0081ff", message: /padding/ },
  ];
  for (const { name, hex, message } of REFUSED) {
    it(`rejects ${name}`, () => {
      expect(() => new HpackDecoder().decode(Buffer.from(hex, "hex"))).toThrow(message);
    });
  }

  it("rejects a header list beyond its limit", () => {
    const decoder = new HpackDecoder(4_096, 100);
    expect(() => decoder.decode(encodeHeaders([["x", "y".repeat(80)]]))).toThrow(/exceeds 100 octets/);
  });

  it("encodes static entries as their index and other fields as literals that leave the table alone", () => {
    const block = encodeHeaders([
      [":status", "200"],
      ["content-type", "application/grpc+proto"],
      ["grpc-status", "0"],
    ]);
    expect(block[0]).toBe(0x88);
    const decoder = new HpackDecoder();
    expect(decoder.decode(block)).toEqual([
      [":status", "200"],
      ["content-type", "application/grpc+proto"],
      ["grpc-status", "0"],
    ]);
    expect(() => decoder.decode(Buffer.from([0x80 | 62]))).toThrow(HpackError);
  });
});
