import { createReadStream, readFileSync, statSync } from "node:fs";
import { describeFileError } from "../contract/file-errors.js";

/**
 * The largest desired-state file converge reads; a larger one is refused before it is read. At this
 * size a file of the smallest documents (about 300,000 RegionOptIn documents) loads in under 500 MiB.
 * Standard input (`-f -`) and variable files (`--var-file`) are bounded alike.
 */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** A file converge will not read, with the reason (the message names the file). */
export class FileRefusal extends Error {}

function tooLarge(name: string, bytes: string, what: FileKind): FileRefusal {
  const split = what === "variable files" ? "--var-file is repeatable" : "a directory is read as one desired state";
  return new FileRefusal(`${name} is ${bytes}: ${what} are limited to ${MAX_FILE_BYTES / 1024 / 1024} MiB each; `
    + `split it into several files (${split})`);
}

/** What is read, for the refusal of a file too large: "desired-state files", "variable files". */
export type FileKind = "desired-state files" | "variable files";

/**
 * A file's text, refused past MAX_FILE_BYTES (a FileRefusal); a FIFO or device named explicitly is
 * read up to the limit. `stream` reads standard input instead of `file`.
 */
export async function readBoundedFile(file: string, name: string, what: FileKind = "desired-state files", stream?: NodeJS.ReadableStream): Promise<string> {
  if (!stream) {
    const info = statSync(file);
    if (info.isFile()) {
      if (info.size > MAX_FILE_BYTES) throw tooLarge(name, `${(info.size / 1024 / 1024).toFixed(1)} MiB`, what);
      return readFileSync(file, "utf8");
    }
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream ?? createReadStream(file)) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_FILE_BYTES) throw tooLarge(name, "larger than that", what);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The problem's message of a file that could not be read: the refusal's, or the system's code. */
export function unreadable(error: unknown, name: string): string {
  return error instanceof FileRefusal ? error.message : `cannot read ${name}: ${describeFileError(error)}`;
}
