import { readFileSync } from "node:fs";
import type { LoadedDocument } from "../desired/load.js";
import { decodeInventory, INVENTORY_MAX_CHUNKS, inventoryOf, removedEntries, sha256Hex, type IdentityDocument } from "../desired/inventory.js";
import { modelOf } from "../desired/kinds/registry.js";
import { KINDS, type Kind } from "../desired/schema.js";
import { CliError } from "./cli-error.js";
import { loadDesiredInput, synthDesiredFiles } from "./desired-input.js";
import { loadDocumentValues } from "./document-env.js";

/**
 * What the cdktf constructs' provisioners hand the CLI (docs/manual/cdktf.md): the stack's
 * desired-state file beside cdk.tf.json (`--from-synth .`), the sha256 terraform planned it with
 * (`--expect-sha256-env VAR`), and the inventory of the previous deploy (`--previous-env PREFIX`, in
 * PREFIX_0, PREFIX_1, …). Messages name variables and files, never their values.
 */

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SynthStackFlags {
  readonly fromSynth: string;
  readonly expectSha256Env?: string | undefined;
}

export interface SynthStack {
  /** The stack's documents, validated as any -f file. */
  readonly documents: LoadedDocument[];
  /** The inventory of those documents: what the stack makes exist. */
  readonly inventory: IdentityDocument[];
}

function variable(name: string, flag: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!VARIABLE_NAME.test(name)) {
    throw new CliError(`${flag} ${JSON.stringify(name)} is not valid: expected the name of an environment variable, e.g. CONVERGE_DESIRED_SHA256`);
  }
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** The stack's desired state, after checking the file is the one terraform planned with. */
export async function loadSynthStack(flags: SynthStackFlags, env: NodeJS.ProcessEnv = process.env): Promise<SynthStack> {
  const files = synthDesiredFiles(flags.fromSynth);
  if (flags.expectSha256Env !== undefined && files.length !== 1) {
    throw new CliError(`--expect-sha256-env checks one stack's file: `
      + `--from-synth ${flags.fromSynth} holds ${files.length} (${files.join(", ")}); name the stack's directory`);
  }
  if (flags.expectSha256Env !== undefined) {
    const expected = variable(flags.expectSha256Env, "--expect-sha256-env", env);
    if (expected === undefined) {
      throw new CliError(`--expect-sha256-env ${flags.expectSha256Env}: the environment variable ${flags.expectSha256Env} is not set or empty`);
    }
    const actual = sha256Hex(readFileSync(files[0]!, "utf8"));
    if (actual !== expected.trim().toLowerCase()) {
      throw new CliError(`${files[0]} is not the desired state terraform planned with `
        + `(sha256 ${actual}, expected ${expected.trim()} from ${flags.expectSha256Env}): nothing was changed. `
        + `Synthesize again (cdktf synth / cdktf deploy) rather than editing the file`);
    }
  }
  const { documents } = await loadDesiredInput(files);
  return { documents: [...documents], inventory: inventoryOf(documents.map((loaded) => loaded.document)) };
}

/** The identity documents held in PREFIX_0, PREFIX_1, … (encodeInventory's chunks), or [] when PREFIX_0 is unset. */
export function readPreviousInventory(prefix: string, env: NodeJS.ProcessEnv = process.env): IdentityDocument[] {
  const chunks: string[] = [];
  for (let index = 0; index < INVENTORY_MAX_CHUNKS; index += 1) {
    const chunk = variable(`${prefix}_${index}`, "--previous-env", env);
    if (chunk === undefined) break;
    chunks.push(chunk);
  }
  try {
    return decodeInventory(chunks);
  } catch (error) {
    throw new CliError(`--previous-env ${prefix}: ${prefix}_0… ${(error as Error).message}`);
  }
}

/**
 * What the previous inventory lists and the current one does not, as `ensure: absent` documents.
 * A contact named with the caller's account left implicit on one side and explicit on the other may
 * be the same contact: it is kept (never deleted on a guess).
 */
export function removedDocuments(previous: ReadonlyArray<IdentityDocument>, current: ReadonlyArray<IdentityDocument>, source: string): LoadedDocument[] {
  const maySelectSame = (entry: IdentityDocument, other: IdentityDocument) =>
    other.kind === entry.kind && (KINDS as ReadonlyArray<unknown>).includes(entry.kind) && (modelOf(entry.kind as Kind).maySelectSame?.(entry, other) ?? false);
  const removed = removedEntries(previous, current).filter((entry) => !current.some((other) => maySelectSame(entry, other)));
  return inventoryAsAbsent(removed, source);
}

/** Inventory entries as `ensure: absent` documents, validated (what `converge delete --from-synth` deletes: the stack's whole inventory). */
export function inventoryAsAbsent(inventory: ReadonlyArray<IdentityDocument>, source: string): LoadedDocument[] {
  return inventory.length === 0 ? [] : loadDocumentValues(inventory.map((entry) => ({ ...entry, ensure: "absent" })), source);
}
