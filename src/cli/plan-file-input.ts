import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describeFileError } from "../contract/file-errors.js";
import { CliError } from "./cli-error.js";
import { parseJsonFile } from "./json-file.js";

/**
 * The JSON of the plan file `converge apply PLAN.json` names, read before anything else is: a
 * directory, a file that is not JSON (a YAML file) or JSON that holds documents rather than a plan
 * is refused with the -f that was meant (`converge apply -f examples/desired-state`), as cargo and
 * gh name the flag a positional argument was mistaken for.
 */
export async function readPlanFile(planFile: string): Promise<unknown> {
  let text: string;
  try {
    if (statSync(planFile).isDirectory()) throw notAPlanFile(planFile, "is a directory");
    text = await readFile(planFile, "utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read the plan file ${planFile}: ${describeFileError(error)}`);
  }
  let json: unknown;
  try {
    json = parseJsonFile(text, planFile);
  } catch (error) {
    if (error instanceof SyntaxError) throw notAPlanFile(planFile, /\.ya?ml$/i.test(planFile) ? "is YAML" : `is not JSON (${error.message})`);
    throw error;
  }
  const isPlan = typeof json === "object" && json !== null && !Array.isArray(json) && "formatVersion" in json && "actions" in json;
  if (!isPlan) throw notAPlanFile(planFile, "holds no plan (no formatVersion and actions)");
  return json;
}

function notAPlanFile(planFile: string, what: string): CliError {
  return new CliError(`${planFile} ${what}, not a plan file: converge apply's argument is a plan written by converge plan --out; `
    + `desired-state files and directories are given with -f: converge apply -f ${planFile}`);
}
