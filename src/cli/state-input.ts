import { createHash } from "node:crypto";
import type { LoadedDocument, LoadOptions } from "../desired/load.js";
import type { LoadedState } from "../desired/terraform-state.js";
import type { ProtocolType } from "../contract/gateway.js";
import type { DriftInput } from "../reconcile/drift.js";
import { CliError } from "./cli-error.js";
import { desiredLoadOptions, loadDesiredInput, synthDesiredFiles } from "./desired-input.js";
import type { VariableFlags } from "./variable-flags.js";

/** What the `--state` paths hold: every converge resource's document and every inventory identity, with the states read. */
export interface StateInput {
  readonly states: ReadonlyArray<LoadedState>;
  readonly documents: ReadonlyArray<LoadedDocument>;
  readonly claims: ReadonlyArray<LoadedDocument>;
  /** The protocols of the APIs the states' `converge_api` data sources read. */
  readonly apiProtocols: ReadonlyMap<string, ProtocolType>;
}

/** Reads the `--state` paths (none: nothing), saying on stderr what each state held. */
export async function loadStateInput(paths: ReadonlyArray<string>, options: Pick<LoadOptions, "select" | "onWarning"> = {}): Promise<StateInput> {
  if (paths.length === 0) return { states: [], documents: [], claims: [], apiProtocols: new Map() };
  // loaded only when a state is given: plan, apply and drift of documents alone never pay for it
  const { loadTerraformStates } = await import("../desired/terraform-state.js");
  const states = await loadTerraformStates(paths, options.select ? { select: options.select } : {});
  for (const state of states) {
    const line = `state ${state.file}: ${plural(state.documents.length, "converge resource")}, `
      + `${plural(state.claims.length, "inventory identity", "inventory identities")}, ${state.skipped} other skipped`;
    if (options.onWarning) options.onWarning(line);
    else process.stderr.write(`converge: ${line}\n`);
  }
  return {
    states,
    documents: states.flatMap((state) => state.documents),
    claims: states.flatMap((state) => state.claims),
    apiProtocols: new Map(states.flatMap((state) => [...state.apiProtocols])),
  };
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The sources of `converge drift`: `-f` paths and a synth output together, and terraform states. */
export interface DriftSourceFlags extends VariableFlags {
  readonly file: ReadonlyArray<string>;
  readonly fromSynth?: string | undefined;
  readonly state: ReadonlyArray<string>;
}

/**
 * Every source of a drift run, loaded (and refused, naming file and line) before anything is read
 * live. The fingerprint is the desired state's (its variables' values included) when there is
 * nothing else (as before states existed), else the hash of it, every state's text and `extra` (the
 * ignore files' texts). Variables are substituted in the -f documents only.
 */
export async function loadDriftInput(
  flags: DriftSourceFlags,
  options: Pick<LoadOptions, "select" | "cache" | "onWarning"> = {},
  extra: ReadonlyArray<string> = [],
): Promise<DriftInput> {
  const paths = [...flags.file, ...(flags.fromSynth !== undefined ? synthDesiredFiles(flags.fromSynth) : [])];
  if (paths.length === 0 && flags.state.length === 0) {
    throw new CliError("nothing to compare: pass -f FILE_OR_DIRECTORY, --from-synth DIR or --state PATH (terraform state; - for standard input)");
  }
  const loading = desiredLoadOptions(flags);
  const desired = paths.length > 0 ? await loadDesiredInput(paths, [], { ...options, ...loading }) : undefined;
  const states = await loadStateInput(flags.state, { ...(options.select ? { select: options.select } : {}), ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
  const fingerprint = states.states.length === 0 && extra.length === 0 && desired
    ? desired.fingerprint
    : fingerprintOf([desired?.fingerprint ?? "", ...states.states.map((state) => state.text), ...extra]);
  // terraform's attribute names are needed only for a state's resources
  const attributeOfFieldPath = states.documents.length > 0 ? (await import("../desired/terraform-resources.js")).attributeOfFieldPath : undefined;
  return {
    documents: desired?.documents ?? [],
    stateDocuments: states.documents,
    claims: states.claims,
    apiProtocols: states.apiProtocols,
    fingerprint,
    ...(desired?.variables ? { variables: desired.variables } : {}),
    ...(attributeOfFieldPath ? { attributeOf: (loaded: LoadedDocument, path: string) => attributeOfFieldPath(loaded.document.kind, path) ?? path } : {}),
  };
}

function fingerprintOf(texts: ReadonlyArray<string>): string {
  const hash = createHash("sha256");
  for (const text of texts) hash.update(`${text.length}\u0000`).update(text);
  return hash.digest("hex");
}
