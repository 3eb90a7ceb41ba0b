import { readFile } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { expect } from "vitest";

/** A state-file line of format 2, built independently of the service's encoder: `<crc32> <JSON>\n`. */
export function journalLine(json: string): string {
  return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
}

/** One line of a state file, parsed. */
export interface JournalLine {
  readonly seq: number;
  readonly snapshot?: Array<[string, string, unknown]>;
  readonly m?: Array<[string, string, unknown]>;
}

/**
 * Checks a state file line by line: each ends in a newline, its checksum matches, line 1 is a
 * snapshot, later lines are records numbered one by one after it. Returns the parsed lines.
 */
export async function expectWellFormedJournal(path: string): Promise<JournalLine[]> {
  const text = await readFile(path, "utf8");
  expect(text.endsWith("\n"), "the journal ends in a whole line").toBe(true);
  const lines = text.slice(0, -1).split("\n");
  let seq = -1;
  return lines.map((line, index) => {
    const json = line.slice(9);
    expect(line.slice(0, 9), `line ${index + 1}: checksum`).toBe(`${crc32(json).toString(16).padStart(8, "0")} `);
    const record = JSON.parse(json) as JournalLine;
    expect(index === 0 ? record.snapshot : record.m, `line ${index + 1}: ${index === 0 ? "snapshot" : "record"}`).toBeDefined();
    if (index > 0) expect(record.seq, `line ${index + 1}: sequence`).toBe(seq + 1);
    seq = record.seq;
    return record;
  });
}
