import { relative, resolve } from "node:path";
import type { DesiredStateProblem, SourceLocation } from "./desired-state-error.js";
import { readVariableFile } from "./variable-file.js";
import { VARIABLE_ENV_PREFIX, VARIABLE_NAME } from "./variable-references.js";

/**
 * Where the values of `${var.NAME}` come from (docs/manual/desired-state.md, "Environments and
 * variables"), lowest precedence first, as terraform orders its own: environment variables
 * `CONVERGE_VAR_NAME`, then `--var NAME=VALUE` and `--var-file FILE` in the order the command line
 * gives them, a later one winning. Nothing else of the environment is ever a variable, so that
 * `CONVERGE_TOKEN` and other secrets cannot be written into a document.
 */

export { VARIABLE_ENV_PREFIX } from "./variable-references.js";

/** A value given on the command line (`--var NAME=VALUE`), or a variable file to read (`--var-file FILE`). */
export type GivenVariables =
  | { readonly name: string; readonly text: string }
  | { readonly file: string };

/** What a command hands the loader: the `--var` and `--var-file` flags in command-line order, and the environment. */
export interface VariableInputs {
  readonly given: ReadonlyArray<GivenVariables>;
  /** Read for `CONVERGE_VAR_*` only. @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One variable's value, and where it was given. */
export interface VariableValue {
  readonly name: string;
  /**
   * With YAML's types from a variable file; a string from `--var` or the environment, which a field
   * that takes no text reads as YAML reads a plain value (`15000` a number, `true` a boolean).
   */
  readonly value: unknown;
  /** Given as text (`--var`, `CONVERGE_VAR_*`): see `value`. */
  readonly text: boolean;
  /** Where it was given, for people: a variable file as named, `--var`, or `CONVERGE_VAR_NAME`. */
  readonly from: string;
  /** In a variable file: where the name is written (found when asked). */
  readonly locate?: (() => SourceLocation) | undefined;
}

/** The variables of one run: each name's value (the winner among those given), and the variable files read, in order. */
export interface Variables {
  readonly values: ReadonlyMap<string, VariableValue>;
  readonly files: ReadonlyArray<string>;
  /** The names given by `--var` or a variable file (not the environment's): a document should use each. */
  readonly flagged: ReadonlyMap<string, VariableValue>;
}

/**
 * Resolves the inputs to one value per name, reading every variable file (files named relative to
 * `cwd`); a file's problems are appended to `problems`, located in that file.
 */
export async function resolveVariables(inputs: VariableInputs, cwd: string, problems: DesiredStateProblem[]): Promise<Variables> {
  const values = new Map<string, VariableValue>();
  const flagged = new Map<string, VariableValue>();
  const files: string[] = [];
  for (const [key, text] of Object.entries(inputs.env ?? process.env)) {
    if (!key.startsWith(VARIABLE_ENV_PREFIX) || text === undefined) continue;
    const name = key.slice(VARIABLE_ENV_PREFIX.length);
    // the environment holds what other tools set too: a name converge cannot read is not its variable
    if (VARIABLE_NAME.test(name)) values.set(name, { name, value: text, text: true, from: key });
  }
  for (const given of inputs.given) {
    if ("name" in given) {
      const value: VariableValue = { name: given.name, value: given.text, text: true, from: "--var" };
      values.set(given.name, value);
      flagged.set(given.name, value);
      continue;
    }
    const name = relative(cwd, resolve(cwd, given.file)) || given.file;
    files.push(name);
    const file = await readVariableFile(resolve(cwd, given.file), name, problems);
    for (const variable of file.variables) {
      const value: VariableValue = { name: variable.name, value: variable.value, text: false, from: name, locate: () => file.locate(variable.name) };
      values.set(variable.name, value);
      flagged.set(variable.name, value);
    }
  }
  return { values, files, flagged };
}
