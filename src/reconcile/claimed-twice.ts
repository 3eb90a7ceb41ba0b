import type { LoadedDocument } from "../desired/loaded-document.js";
import { classifyEstate } from "./drift-estate.js";
import type { DriftResource } from "./drift-report.js";
import type { LiveState } from "./model.js";

/**
 * The resources of `documents` that a terraform state's converge resources (or a cdktf stack's
 * inventory) manage too: drift's `conflict`, found the same way (classifyEstate), for plan and apply
 * with `--state` to say before they write that two managers will fight over them. One entry per
 * resource, the documents' side (its reason names every claimant).
 */
export function claimedTwice(
  documents: ReadonlyArray<LoadedDocument>,
  states: { readonly documents: ReadonlyArray<LoadedDocument>; readonly claims: ReadonlyArray<LoadedDocument> },
  live: LiveState,
): DriftResource[] {
  if (states.documents.length === 0 && states.claims.length === 0) return [];
  const { resources } = classifyEstate({ documents, stateDocuments: states.documents, claims: states.claims }, live);
  // the documents' side of each conflict: their entries carry a place in a file, a state's its instance
  return resources.filter((resource) => resource.outcome === "conflict" && resource.source != null && "file" in resource.source);
}
