import { readFile } from "node:fs/promises";
import { parseDriftReport, type DriftReport } from "../reconcile/drift-report.js";
import { CliError } from "./cli-error.js";
import { parseJsonFile } from "./json-file.js";
import { describeFileError } from "../contract/file-errors.js";

/**
 * A JSON drift report named on the command line (`drift merge`, `export --from-drift`), read and
 * parsed: a file that cannot be read or is not JSON is a CliError naming it; one that is not a
 * report, parseDriftReport's DriftReportError (which names it too).
 */
export async function readDriftReportFile(file: string): Promise<DriftReport> {
  let json: unknown;
  try {
    json = parseJsonFile(await readFile(file, "utf8"), file);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read drift report ${file}: ${describeFileError(error)}`);
  }
  return parseDriftReport(json, file);
}
