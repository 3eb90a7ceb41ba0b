/**
 * The DER encodings a self-signed certificate needs (ITU-T X.690): each value is its tag, its length
 * and its contents. Written here rather than imported: node-forge's encoder took 10 ms and more to
 * load before the handshake, for a dozen lines of encoding.
 */
export type Der = Buffer;

/** A tag, a definite length (short form below 128, else long form) and the contents. */
export function tagged(tag: number, contents: Buffer): Der {
  const length = contents.length;
  if (length < 0x80) return Buffer.concat([Buffer.from([tag, length]), contents]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | bytes.length, ...bytes]), contents]);
}

export const sequence = (...items: Der[]): Der => tagged(0x30, Buffer.concat(items));
export const set = (...items: Der[]): Der => tagged(0x31, Buffer.concat(items));
/** An INTEGER of big-endian bytes already minimal and positive. */
export const integer = (bytes: Buffer): Der => tagged(0x02, bytes);
export const boolean = (value: boolean): Der => tagged(0x01, Buffer.from([value ? 0xff : 0x00]));
export const bitString = (bytes: Buffer, unusedBits = 0): Der => tagged(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
export const octetString = (bytes: Buffer): Der => tagged(0x04, bytes);
export const utf8String = (text: string): Der => tagged(0x0c, Buffer.from(text, "utf8"));
/** A context-specific constructed value ([n] EXPLICIT). */
export const explicit = (tag: number, item: Der): Der => tagged(0xa0 | tag, item);
/** A context-specific primitive value ([n] IMPLICIT of a primitive type). */
export const implicit = (tag: number, bytes: Buffer): Der => tagged(0x80 | tag, bytes);

/** An OBJECT IDENTIFIER from its dotted form: the first two arcs in one byte, each arc after in base 128. */
export function objectIdentifier(dotted: string): Der {
  const arcs = dotted.split(".").map(Number);
  if (arcs.length < 2 || arcs.some((arc) => !Number.isSafeInteger(arc) || arc < 0)) throw new Error(`received the object identifier ${JSON.stringify(dotted)}: expected two or more dot-separated non-negative integers`);
  const bytes = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const digits = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) digits.unshift(0x80 | (rest & 0x7f));
    bytes.push(...digits);
  }
  return tagged(0x06, Buffer.from(bytes));
}

/** A UTCTime (YYMMDDHHMMSSZ), for dates from 1950 to 2049 as X.509 wants them. */
export function utcTime(date: Date): Der {
  const two = (value: number) => String(value).padStart(2, "0");
  const text = `${two(date.getUTCFullYear() % 100)}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`;
  return tagged(0x17, Buffer.from(text, "ascii"));
}
