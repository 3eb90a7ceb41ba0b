import { NestingError, parseJsonWithinDepth } from "../input-limits/nesting.js";
import { CliError } from "./cli-error.js";

/**
 * A JSON file handed to the CLI (a plan file, a drift report), parsed: refused at its file, line and
 * column when it nests deeper than converge reads (docs/manual/desired-state.md), so that no
 * later walk over its value recurses without end; JSON.parse's SyntaxError otherwise, as before.
 */
export function parseJsonFile(text: string, file: string): unknown {
  try {
    return parseJsonWithinDepth(text);
  } catch (error) {
    if (error instanceof NestingError) throw new CliError(`${file}:${error.line}:${error.column}: ${error.problem}`);
    throw error;
  }
}
