import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { describeFileError } from "../contract/file-errors.js";
import { CliError } from "./cli-error.js";

/**
 * Makes the folder of a file a command will write (`--report out/drift.xml`, `--out plans/plan.json`),
 * as terraform's `-out` and kubectl's output files need no mkdir first; refuses, naming the flag,
 * before anything is read when it cannot be made or the path is a directory, so that no result is
 * lost to a path at the end of a run.
 */
export function prepareOutputFile(flag: string, file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: "EISDIR" });
  } catch (error) {
    throw new CliError(`${flag} ${file}: cannot write there: ${describeFileError(error)}`);
  }
}
