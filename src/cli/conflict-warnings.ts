import type { LoadedDocument } from "../desired/loaded-document.js";
import { claimedTwice } from "../reconcile/claimed-twice.js";
import type { LiveState } from "../reconcile/model.js";
import type { StateInput } from "./state-input.js";

/**
 * Warns on stderr, before anything is written, of each resource the documents declare that a
 * terraform state given with `--state` manages too (drift's `conflict`): applying would make two
 * managers fight over it. A warning, as terraform's are: the exit code stays the plan's.
 */
export function warnOfConflicts(documents: ReadonlyArray<LoadedDocument>, states: StateInput, live: LiveState, stream: NodeJS.WritableStream = process.stderr): void {
  for (const resource of claimedTwice(documents, states, live)) stream.write(`converge: warning: ${resource.address} ${resource.reason}\n`);
}
