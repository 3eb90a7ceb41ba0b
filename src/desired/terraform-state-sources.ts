import { createReadStream, readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { globSync } from "tinyglobby";
import type { DesiredStateProblem } from "./desired-state-error.js";
import { describeFileError } from "../contract/file-errors.js";

/**
 * The state files a `--state` list names, and their texts: a file, a directory (every `*.tfstate`
 * under it, recursively, in sorted order, hidden entries skipped: `.terraform/terraform.tfstate`
 * is the backend's settings, not a state), a glob, or `-` for standard input.
 */

/**
 * The largest state converge reads; a larger one is refused before it is read. terraform writes
 * about 1 KiB per instance of a route (pretty-printed attributes; an integration's a little more),
 * so a state of 50,000 instances is near 50 MiB and loads in about 250 MiB: this leaves room for
 * five times that, and keeps the text (held whole, and parsed whole by JSON.parse) well below V8's
 * longest string (512 MiB).
 */
export const MAX_STATE_BYTES = 256 * 1024 * 1024;

/** A state to read: its path (absolute), or standard input; and its name in messages. */
export interface StateSource {
  readonly path: string | "-";
  /** Relative to the working directory; "(stdin)" for standard input. */
  readonly name: string;
}

/** What a list of paths gives: the sources in order, and the problems of paths that give none. */
export interface CollectedSources {
  readonly sources: StateSource[];
  readonly problems: DesiredStateProblem[];
}

const STDIN_NAME = "(stdin)";

/** Whether a path is a glob: it holds `*`, `?`, `[` or `{`. */
export function isGlob(path: string): boolean {
  return /[*?[{]/.test(path);
}

/** The sources of `paths`, each path's in sorted order; a directory without `*.tfstate`, a glob matching nothing or a missing path is a problem. */
export function collectStateSources(paths: ReadonlyArray<string>, cwd: string): CollectedSources {
  const sources: StateSource[] = [];
  const problems: DesiredStateProblem[] = [];
  const display = (file: string) => relative(cwd, file) || file;
  const problem = (file: string, message: string) => problems.push({ file, line: 1, column: 1, path: "", message });
  for (const path of paths) {
    if (path === "-") {
      sources.push({ path: "-", name: STDIN_NAME });
      continue;
    }
    if (isGlob(path)) {
      const matches = globSync(path, { cwd, absolute: true, onlyFiles: true, expandDirectories: false }).sort();
      if (matches.length === 0) problem(path, `the glob ${JSON.stringify(path)} matches no file: expected at least one terraform state`);
      for (const match of matches) sources.push({ path: match, name: display(match) });
      continue;
    }
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    let directory: boolean;
    try {
      directory = statSync(absolute).isDirectory();
    } catch (error) {
      problem(path, `cannot read ${path}: ${describeFileError(error)}`);
      continue;
    }
    if (!directory) {
      sources.push({ path: absolute, name: display(absolute) });
      continue;
    }
    const found: string[] = [];
    walkStates(absolute, found, (file, message) => problem(display(file), message));
    if (found.length === 0) problem(path, `the directory ${path} holds no *.tfstate file: expected at least one terraform state`);
    for (const file of found) sources.push({ path: file, name: display(file) });
  }
  return { sources, problems };
}

/** The `*.tfstate` files under a directory, in sorted order (hidden entries skipped; links followed to files only). */
function walkStates(directory: string, found: string[], problem: (file: string, message: string) => void): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    problem(directory, `cannot read ${directory}: ${describeFileError(error)}`);
    return;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const full = join(directory, entry.name);
    if (entry.isDirectory()) walkStates(full, found, problem);
    else if (entry.name.endsWith(".tfstate") && (entry.isFile() || (entry.isSymbolicLink() && isFile(full)))) found.push(full);
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    // a link that leads nowhere is no state; the walk names only what it reads
    return false;
  }
}

/** A state's text would pass MAX_STATE_BYTES: the problem names the file and the bound. */
export class StateTooLarge extends Error {
  constructor(name: string, size: string) {
    super(`${name} is ${size}: terraform states are limited to ${MAX_STATE_BYTES / 1024 / 1024} MiB each`);
    this.name = "StateTooLarge";
  }
}

/** The text of a source, refused past MAX_STATE_BYTES; standard input is read from `stdin`. */
export async function readStateSource(source: StateSource, stdin: NodeJS.ReadableStream): Promise<string> {
  if (source.path !== "-") {
    const info = statSync(source.path);
    if (info.isFile()) {
      if (info.size > MAX_STATE_BYTES) throw new StateTooLarge(source.name, `${(info.size / 1024 / 1024).toFixed(1)} MiB`);
      return readFileSync(source.path, "utf8");
    }
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const stream = source.path === "-" ? stdin : createReadStream(source.path);
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_STATE_BYTES) throw new StateTooLarge(source.name, "larger than that");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
