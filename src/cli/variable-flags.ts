import type { GivenVariables, VariableInputs } from "../desired/variable-set.js";
import { VARIABLE_NAME } from "../desired/variable-references.js";
import { CliError } from "./cli-error.js";

/**
 * The `--var NAME=VALUE` and `--var-file FILE` flags (docs/manual/desired-state.md, "Environments
 * and variables"). They take effect in the order the command line gives them, a later one winning,
 * as terraform's `-var` and `-var-file` do: each value remembers its place among both flags.
 */

/** One `--var` or `--var-file` as typed, with its place on the command line. */
export interface VariableFlag {
  readonly text: string;
  readonly order: number;
}

/** The variable flags of a command that reads desired-state files. */
export interface VariableFlags {
  /** `--var NAME=VALUE` (repeatable). */
  readonly var?: ReadonlyArray<VariableFlag> | undefined;
  /** `--var-file FILE` (repeatable). */
  readonly varFile?: ReadonlyArray<VariableFlag> | undefined;
}

let placed = 0;

/** Commander's parser of a repeatable variable flag: appends the value with its place on the command line. */
export function collectVariableFlag(text: string, previous: ReadonlyArray<VariableFlag>): VariableFlag[] {
  placed += 1;
  return [...previous, { text, order: placed }];
}

/** Whether any variable flag was given. */
export function hasVariableFlags(flags: VariableFlags): boolean {
  return (flags.var?.length ?? 0) + (flags.varFile?.length ?? 0) > 0;
}

/**
 * What the loader substitutes from: the flags in command-line order (every malformed `--var`
 * refused at once, naming the value received) and the environment's `CONVERGE_VAR_*`.
 */
export function variableInputs(flags: VariableFlags, env: NodeJS.ProcessEnv = process.env): VariableInputs {
  const problems: string[] = [];
  const given: Array<GivenVariables & { readonly order: number }> = [];
  for (const { text, order } of flags.var ?? []) {
    const equals = text.indexOf("=");
    const name = equals === -1 ? text : text.slice(0, equals);
    if (equals === -1 || !VARIABLE_NAME.test(name)) {
      const shown = JSON.stringify(equals === -1 ? text : `${name}=…`);
      problems.push(`--var ${shown} is not valid: expected NAME=VALUE, NAME a letter or _ then letters, digits or _ (e.g. --var api_id=a1b2c3d4e5)`);
      continue;
    }
    given.push({ name, text: text.slice(equals + 1), order });
  }
  for (const { text, order } of flags.varFile ?? []) {
    if (text === "" || text === "-") problems.push(`--var-file ${JSON.stringify(text)} is not valid: expected the path of a YAML file of NAME: value`);
    else given.push({ file: text, order });
  }
  if (problems.length > 0) throw new CliError(problems.join("\n"));
  return { given: given.sort((a, b) => a.order - b.order).map(({ order: _order, ...rest }) => rest), env };
}
