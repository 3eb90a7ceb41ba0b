import type { SourceLocation } from "./desired-state-error.js";
import type { Document } from "./schema.js";

/** Where a state-managed resource comes from: the state file as the user named it, and the terraform address. */
export interface TerraformOrigin {
  readonly state: string;
  readonly address: string;
}

/** A validated document with where it came from. */
export interface LoadedDocument<D extends Document = Document> {
  readonly document: D;
  /** Where the document starts. */
  readonly source: SourceLocation;
  /** Where a field of the document stands (the nearest existing parent when the field is absent). */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation;
  /** Set for a document made from an instance of a terraform state (src/desired/terraform-state.ts): the state and the instance's address. */
  readonly terraform?: TerraformOrigin;
}
