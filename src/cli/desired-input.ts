import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadDesiredState, STDIN_PATH, type DesiredState, type LoadedDocument, type LoadOptions } from "../desired/load.js";
import { modelOf } from "../desired/kinds/registry.js";
import { SYNTH_DESIRED_FILE } from "../desired/synth-file.js";
import { CliError } from "./cli-error.js";
import { hasVariableFlags, variableInputs, type VariableFlags } from "./variable-flags.js";

/**
 * The desired-state files of a cdktf synth output: `DIR/converge.desired.json` (a stack directory)
 * or `DIR/stacks/<stack>/converge.desired.json` for every stack (a cdktf.out directory).
 */
export function synthDesiredFiles(directory: string): string[] {
  const direct = join(directory, SYNTH_DESIRED_FILE);
  if (existsSync(direct)) return [direct];
  const stacks = join(directory, "stacks");
  const files = existsSync(stacks)
    ? readdirSync(stacks, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(stacks, entry.name, SYNTH_DESIRED_FILE))
      .filter((file) => existsSync(file))
      .sort()
    : [];
  if (files.length === 0) {
    throw new CliError(`--from-synth ${directory}: no ${SYNTH_DESIRED_FILE} found `
      + `(expected ${direct} or ${join(stacks, "<stack>", SYNTH_DESIRED_FILE)}); run cdktf synth first`);
  }
  return files;
}

/** The -f paths, or the synth output's desired-state files with --from-synth (one or the other). */
export function desiredPaths(flags: { readonly file: ReadonlyArray<string>; readonly fromSynth?: string | undefined }): string[] {
  if (flags.fromSynth !== undefined && flags.file.length > 0) throw new CliError("pass either -f PATH or --from-synth DIR, not both");
  return flags.fromSynth !== undefined ? synthDesiredFiles(flags.fromSynth) : [...flags.file];
}

/** The flags of a command that reads desired-state documents: -f paths (`-` for standard input), a synth output, variables. */
export interface DesiredFlags extends VariableFlags {
  readonly file: ReadonlyArray<string>;
  readonly fromSynth?: string | undefined;
  /** terraform states: `-` reads standard input too, which can be read once. */
  readonly state?: ReadonlyArray<string> | undefined;
}

/**
 * How a command's documents are read: `${var.…}` substituted in the -f documents (with --var,
 * --var-file and CONVERGE_VAR_*), never in a cdktf synth's output. Refuses variable flags with no -f
 * document to give them to, and standard input named twice (`-f -` with `--state -`).
 */
export function desiredLoadOptions(flags: DesiredFlags, env: NodeJS.ProcessEnv = process.env): LoadOptions {
  if (flags.file.includes(STDIN_PATH) && flags.state?.includes(STDIN_PATH)) {
    throw new CliError("-f - and --state - both read standard input, which can be read once: give one of them a file");
  }
  // a renderer pipes its output in; on a terminal, say why nothing happens yet
  if (flags.file.includes(STDIN_PATH) && process.stdin.isTTY) process.stderr.write("converge: reading documents from standard input (end with Ctrl-D)\n");
  if (flags.file.length === 0) {
    if (hasVariableFlags(flags)) {
      throw new CliError("--var and --var-file give values to ${var.NAME} in -f documents: pass -f PATH "
        + "(a cdktf synth's output, --from-synth, is a program's result and is never interpolated)");
    }
    return {};
  }
  return { variables: variableInputs(flags, env), verbatimPaths: flags.fromSynth !== undefined ? synthDesiredFiles(flags.fromSynth) : [] };
}

/**
 * The desired state a command works on: loaded from -f paths (the loader's warnings printed on
 * stderr), then narrowed by --target KIND/NAME (a targeted route brings along the integration it
 * targets by name, as terraform's -target does).
 */
export async function loadDesiredInput(paths: ReadonlyArray<string>, targets: ReadonlyArray<string> = [], options: LoadOptions = {}): Promise<DesiredState> {
  if (paths.length === 0) throw new CliError("no desired state: pass -f FILE_OR_DIRECTORY (repeatable)");
  const desired = await loadDesiredState(paths, { ...options, onWarning: options.onWarning ?? ((warning) => process.stderr.write(`converge: warning: ${warning}\n`)) });
  return targets.length === 0 ? desired : { ...desired, documents: selectTargets(desired.documents, targets) };
}

/** The documents of loadDesiredInput. */
export async function loadDocuments(paths: ReadonlyArray<string>, targets: ReadonlyArray<string> = []): Promise<LoadedDocument[]> {
  return [...(await loadDesiredInput(paths, targets)).documents];
}

function selectTargets(documents: ReadonlyArray<LoadedDocument>, targets: ReadonlyArray<string>): LoadedDocument[] {
  const addressOf = (loaded: LoadedDocument) => `${loaded.document.kind}/${modelOf(loaded.document.kind).displayName(loaded.document)}`;
  const identityOf = (loaded: LoadedDocument) => `${loaded.document.kind}/${modelOf(loaded.document.kind).identity(loaded.document)}`;
  const selected = new Set(documents.filter((loaded) => targets.includes(addressOf(loaded)) || targets.includes(identityOf(loaded))));
  const unmatched = targets.filter((target) => !documents.some((loaded) => addressOf(loaded) === target || identityOf(loaded) === target));
  if (unmatched.length > 0) {
    const known = documents.slice(0, 8).map(addressOf).join(", ");
    throw new CliError(`--target ${unmatched.map((t) => JSON.stringify(t)).join(", ")} matches no document: expected KIND/NAME such as ${known}`);
  }
  for (const loaded of [...selected]) {
    for (const dependency of modelOf(loaded.document.kind).dependencies?.(loaded.document, documents) ?? []) selected.add(dependency);
  }
  return documents.filter((loaded) => selected.has(loaded));
}
