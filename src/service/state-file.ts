import { crc32 } from "node:zlib";
import { z } from "zod";
import { describeZodIssues, renderValue } from "../contract/field-issues.js";
import { MAX_NESTING_DEPTH, NestingError, parseJsonWithinDepth } from "../input-limits/nesting.js";

/** One change to one entry of a collection: a full new value, or `null` for removal. */
export interface Mutation {
  readonly collection: string;
  readonly key: string;
  readonly value: unknown;
}

/**
 * The state file, format 2 (docs/manual/embedded-service.md, "Durability"): one record per line,
 * `<crc32 of the JSON, 8 hex digits> <JSON>\n`. Line 1 is a snapshot,
 * `{"converge":"state","version":2,"seq":S,"snapshot":[[collection, key, value], …]}`, the state
 * after record S; every later line is a record `{"seq":N,"m":[[collection, key, value|null], …]}`
 * holding the changes of one write to the file, numbered S+1, S+2, … without gaps.
 *
 * Format 1 (converge before format 2) is the same without checksums and sequence numbers:
 * `{"snapshot":[…]}`, then `{"m":[…]}` lines. It is read, and rewritten as format 2 on start.
 */
export const STATE_FILE_VERSION = 2;

const Tuple = z.tuple([z.string(), z.string(), z.unknown()]);
const Seq = z.number().int().min(0);
const SnapshotLine = z.strictObject({ converge: z.literal("state"), version: z.number().int(), seq: Seq, snapshot: z.array(Tuple) });
const RecordLine = z.strictObject({ seq: Seq, m: z.array(Tuple).min(1) });
const LegacySnapshotLine = z.strictObject({ snapshot: z.array(Tuple) });
const LegacyRecordLine = z.strictObject({ m: z.array(Tuple) });

const SNAPSHOT_SHAPE = '{"converge":"state","version":2,"seq":<integer>,"snapshot":[[collection, key, value], …]}';
const RECORD_SHAPE = '{"seq":<integer>,"m":[[collection, key, value or null], …]}';

/** The JSON of the tuples of some mutations, without the enclosing brackets (records join them). */
export function encodeTuples(mutations: ReadonlyArray<Mutation>): string {
  const json = JSON.stringify(mutations.map((m) => [m.collection, m.key, m.value]));
  return json.slice(1, -1);
}

export function snapshotLine(seq: number, mutations: ReadonlyArray<Mutation>): string {
  return checksummed(`{"converge":"state","version":${STATE_FILE_VERSION},"seq":${seq},"snapshot":[${encodeTuples(mutations)}]}`);
}

/** One record holding the changes of one write; `tuples` are {@link encodeTuples} texts. */
export function recordLine(seq: number, tuples: ReadonlyArray<string>): string {
  return checksummed(`{"seq":${seq},"m":[${tuples.join(",")}]}`);
}

function checksummed(json: string): string {
  return `${hex(crc32(json))} ${json}\n`;
}

function hex(sum: number): string {
  return sum.toString(16).padStart(8, "0");
}

/** The changes of one line of the file, where it is (for messages about it). */
export interface StateFileChunk {
  readonly line: number;
  readonly offset: number;
  readonly mutations: ReadonlyArray<Mutation>;
}

/** A torn last record (a last line without its newline): written when the process died, never acknowledged, dropped on start. */
export interface TornTail {
  readonly line: number;
  readonly offset: number;
  readonly bytes: number;
  readonly reason: string;
}

export interface ParsedStateFile {
  readonly version: 1 | 2;
  /** The snapshot, then each record, in file order. */
  readonly chunks: ReadonlyArray<StateFileChunk>;
  /** Sequence number of the last record (the snapshot's when there is none); 0 for format 1. */
  readonly seq: number;
  /** Bytes up to the end of the last good record. */
  readonly validLength: number;
  readonly tornTail?: TornTail;
}

/** What a collection's stored values look like: the file is checked against it. */
export type ValueSchemas = ReadonlyMap<string, z.ZodType>;

/** A state file that cannot be used: the message names the file, the place, what was found and what was expected. */
export class StateFileError extends Error {
  readonly code = "CONVERGE_STATE_FILE";

  constructor(path: string, problem: string, recovery = movingAside(path)) {
    super(`state file ${path} ${problem}\n${recovery}`);
    this.name = "StateFileError";
  }
}

/**
 * How to recover from a damaged last line: as from any damage, or, when the line is known not to be
 * an acknowledged write (appended by hand, say), by cutting it off.
 */
function lastLineRecovery(path: string, line: Line): string {
  return `${movingAside(path)}; if you know this last line holds no write the service acknowledged (it was appended by hand, say), `
    + `cut it off instead (truncate -s ${line.offset} ${path}) and start again`;
}

export function movingAside(path: string): string {
  return `the file was left unchanged; to start from the world's seed data instead, move it aside (mv ${path} ${path}.damaged) and start again; `
    + `to keep its state, repair the file or restore it from a copy`;
}

/**
 * Reads the bytes of a state file. Only a last line without its newline may be damaged (a write torn
 * by a crash): it is reported in `tornTail` and left out. Anything else that is not as written, a
 * whole last line included, throws a
 * {@link StateFileError}. `schemas` checks each stored value (skipped when absent: bytes this
 * process wrote and synced itself).
 */
export function parseStateFile(path: string, bytes: Buffer, schemas: ValueSchemas | undefined): ParsedStateFile {
  const reader = new LineReader(path, bytes);
  if (!bytes.includes(0x0a)) throw snapshotDamage(reader, reader.next()!, { found: "has no newline", expected: "" });
  if (bytes[0] === 0x7b /* { */) return parseLegacy(reader, schemas);
  if (!/^[0-9a-f]{8} /.test(bytes.subarray(0, 9).toString("latin1"))) {
    const line = reader.next()!;
    throw reader.error(line, `begins with ${preview(line.text)}`,
      `a converge state file: "<crc32> ${SNAPSHOT_SHAPE}" (format 2), or a JSON snapshot line (format 1)`);
  }
  return parseCurrent(reader, schemas);
}

interface Line {
  readonly number: number;
  readonly offset: number;
  /** Without the newline. */
  readonly text: string;
  readonly raw: Buffer;
  readonly complete: boolean;
}

class LineReader {
  readonly path: string;
  readonly bytes: Buffer;
  #offset = 0;
  #number = 0;

  constructor(path: string, bytes: Buffer) {
    this.path = path;
    this.bytes = bytes;
  }

  get offset(): number {
    return this.#offset;
  }

  next(): Line | undefined {
    if (this.#offset >= this.bytes.length) return undefined;
    const end = this.bytes.indexOf(0x0a, this.#offset);
    const stop = end === -1 ? this.bytes.length : end;
    const raw = this.bytes.subarray(this.#offset, stop);
    const line: Line = { number: (this.#number += 1), offset: this.#offset, text: raw.toString("utf8"), raw, complete: end !== -1 };
    this.#offset = end === -1 ? this.bytes.length : end + 1;
    return line;
  }

  error(line: Line, found: string, expected: string, recovery?: string): StateFileError {
    return new StateFileError(this.path, `cannot be used: line ${line.number} (byte ${line.offset}) ${found}; expected ${expected}.`, recovery);
  }
}

function parseCurrent(reader: LineReader, schemas: ValueSchemas | undefined): ParsedStateFile {
  const chunks: StateFileChunk[] = [];
  let seq = 0;
  let validLength = 0;
  for (let line = reader.next(); line; line = reader.next()) {
    const isLast = reader.offset >= reader.bytes.length;
    const damage = integrityProblem(line);
    if (damage) {
      if (line.number === 1) throw snapshotDamage(reader, line, damage);
      // the newline is the last byte of an append: only a line without it can be a torn write
      if (!line.complete) {
        return {
          version: 2,
          chunks,
          seq,
          validLength,
          tornTail: { line: line.number, offset: line.offset, bytes: line.raw.length, reason: damage.found },
        };
      }
      if (isLast) {
        throw reader.error(line, `${damage.found}, and it is the last line, whole (it ends in its newline)`,
          `${damage.expected}: a write torn by a crash never ends in its newline, so a whole line that fails its check is damage, `
            + `not a torn write (it may be an acknowledged write whose bytes changed)`,
          lastLineRecovery(reader.path, line));
      }
      throw reader.error(line, `${damage.found}, and ${describeRest(reader)} follow${lineCount(reader) === 1 ? "s" : ""} it`,
        `${damage.expected}: only the last line can be torn by a crash, so this is damage, not a torn write`);
    }
    const json = parseJson(reader, line, line.text.slice(9), schemas !== undefined);
    if (line.number === 1) {
      const snapshot = checkShape(reader, line, json, SnapshotLine, "a snapshot line", SNAPSHOT_SHAPE);
      if (snapshot.version > STATE_FILE_VERSION) {
        throw reader.error(line, `is format version ${snapshot.version}`, `version ${STATE_FILE_VERSION} or older: the file was written by a newer converge`);
      }
      chunks.push(chunk(reader, line, json, "snapshot", snapshot.snapshot, schemas));
      seq = snapshot.seq;
    } else {
      const record = checkShape(reader, line, json, RecordLine, "a record line", RECORD_SHAPE);
      if (record.seq !== seq + 1) {
        const missing = record.seq - seq - 1;
        const gap = missing <= 0 ? "" : missing === 1 ? `: record ${seq + 1} is missing` : `: records ${seq + 1} to ${record.seq - 1} are missing`;
        throw reader.error(line, `holds record ${record.seq} right after record ${seq}${gap}`,
          `record ${seq + 1}: the records of a state file are numbered one by one, without gaps or repeats`,
          isLast ? lastLineRecovery(reader.path, line) : undefined);
      }
      chunks.push(chunk(reader, line, json, "m", record.m, schemas));
      seq = record.seq;
    }
    validLength = reader.offset;
  }
  return { version: 2, chunks, seq, validLength };
}

/** Format 1: no checksums, no sequence numbers; only a line without its newline counts as torn. */
function parseLegacy(reader: LineReader, schemas: ValueSchemas | undefined): ParsedStateFile {
  const chunks: StateFileChunk[] = [];
  let validLength = 0;
  for (let line = reader.next(); line; line = reader.next()) {
    if (!line.complete) {
      if (line.number === 1) throw snapshotDamage(reader, line, { found: "has no newline", expected: "" });
      return {
        version: 1,
        chunks,
        seq: 0,
        validLength,
        tornTail: { line: line.number, offset: line.offset, bytes: line.raw.length, reason: "has no newline" },
      };
    }
    const json = parseJson(reader, line, line.text, schemas !== undefined);
    if (line.number === 1) {
      const snapshot = checkShape(reader, line, json, LegacySnapshotLine, "a snapshot line (format 1)", '{"snapshot":[[collection, key, value], …]}');
      chunks.push(chunk(reader, line, json, "snapshot", snapshot.snapshot, schemas));
    } else {
      const record = checkShape(reader, line, json, LegacyRecordLine, "a record line (format 1)", '{"m":[[collection, key, value or null], …]}');
      chunks.push(chunk(reader, line, json, "m", record.m, schemas));
    }
    validLength = reader.offset;
  }
  return { version: 1, chunks, seq: 0, validLength };
}

interface Damage {
  readonly found: string;
  readonly expected: string;
}

/** Whether a format-2 line is whole: its newline, its checksum prefix, and a matching checksum. */
function integrityProblem(line: Line): Damage | undefined {
  if (!line.complete) return { found: `has no newline (${line.raw.length} bytes: ${preview(line.text)})`, expected: "a line that ends in a newline" };
  if (line.raw.length < 10 || !/^[0-9a-f]{8} $/.test(line.raw.subarray(0, 9).toString("latin1"))) {
    return { found: `begins with ${preview(line.text)}`, expected: '"<crc32, 8 hex digits> <JSON>"' };
  }
  const declared = line.raw.subarray(0, 8).toString("latin1");
  const actual = hex(crc32(line.raw.subarray(9)));
  if (declared !== actual) return { found: `has checksum ${declared} but its content sums to ${actual}`, expected: "the checksum of the line's content" };
  return undefined;
}

function snapshotDamage(reader: LineReader, line: Line, damage: Damage): StateFileError {
  if (!line.complete) {
    return reader.error(line, `is cut off: ${line.raw.length} byte${line.raw.length === 1 ? "" : "s"} (${preview(line.text)}) and no newline`,
      "a whole snapshot line ending in a newline (the file was cut inside its snapshot line, or it is not a converge state file)");
  }
  return reader.error(line, damage.found, `${damage.expected} (the snapshot line is damaged)`);
}

/** "2 more lines (300 bytes)": what comes after the current line. */
function describeRest(reader: LineReader): string {
  const after = reader.bytes.length - reader.offset;
  const lines = lineCount(reader);
  return `${lines} more line${lines === 1 ? "" : "s"} (${after} byte${after === 1 ? "" : "s"})`;
}

function lineCount(reader: LineReader): number {
  const rest = reader.bytes.subarray(reader.offset);
  let count = 0;
  for (let at = rest.indexOf(0x0a); at !== -1; at = rest.indexOf(0x0a, at + 1)) count += 1;
  return rest.length > 0 && rest[rest.length - 1] !== 0x0a ? count + 1 : count;
}

/**
 * A line's JSON. `checked`: on start, a line that nests too deeply is refused before it is parsed (a
 * stored value is kept as read, and every later walk over it would recurse without end); the bytes
 * this process wrote itself are not scanned again.
 */
function parseJson(reader: LineReader, line: Line, text: string, checked: boolean): unknown {
  try {
    return checked ? parseJsonWithinDepth(text) : JSON.parse(text);
  } catch (error) {
    if (error instanceof NestingError) {
      const column = line.text.length - text.length + error.column;
      throw reader.error(line, `nests lists and mappings too deeply: one opens at level ${MAX_NESTING_DEPTH + 1} (column ${column})`,
        `at most ${MAX_NESTING_DEPTH} levels, as converge writes them (its records nest at most 7)`);
    }
    throw reader.error(line, `is not JSON (${(error as Error).message}): ${preview(text)}`, "a JSON object");
  }
}

function checkShape<T extends z.ZodType>(reader: LineReader, line: Line, json: unknown, schema: T, what: string, shape: string): z.output<T> {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw reader.error(line, `is ${renderValue(json)}, not ${what}`, shape);
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw reader.error(line, `is not ${what}: ${describeZodIssues(result.error.issues, json).map((issue) => issue.message).join("; ")}`, shape);
}

function chunk(
  reader: LineReader,
  line: Line,
  json: unknown,
  field: "snapshot" | "m",
  tuples: ReadonlyArray<readonly [string, string, unknown]>,
  schemas: ValueSchemas | undefined,
): StateFileChunk {
  const mutations: Mutation[] = [];
  for (let index = 0; index < tuples.length; index += 1) {
    const [collection, key, value] = tuples[index]!;
    if (schemas) {
      const schema = schemas.get(collection);
      if (!schema) {
        throw reader.error(line, `${field}[${index}][0] names collection ${renderValue(collection)}`,
          `one of ${[...schemas.keys()].map((name) => JSON.stringify(name)).join(", ")}`);
      }
      if (value === null && field === "snapshot") {
        throw reader.error(line, `${field}[${index}][2] is null (key ${renderValue(key)})`,
          `a value of collection ${JSON.stringify(collection)}: a snapshot holds no removals`);
      }
      if (value !== null) {
        const result = schema.safeParse(value);
        if (!result.success) {
          const issues = result.error.issues.map((issue) => ({ ...issue, path: [field, index, 2, ...issue.path] }));
          const problems = describeZodIssues(issues, json).map((issue) => issue.message).join("; ");
          throw reader.error(line, `holds a value of collection ${JSON.stringify(collection)} (key ${renderValue(key)}) that is not valid: ${problems}`,
            `a value as converge stores it in ${JSON.stringify(collection)}`);
        }
      }
    }
    mutations.push({ collection, key, value });
  }
  return { line: line.number, offset: line.offset, mutations };
}

/** The start of a text for a message: printable, cut to a readable length. */
function preview(text: string): string {
  const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(cut);
}
