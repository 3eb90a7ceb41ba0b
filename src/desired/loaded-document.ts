import type { SourceLocation } from "./desired-state-error.js";
import type { Document } from "./schema.js";

/** A validated document with where it came from. */
export interface LoadedDocument<D extends Document = Document> {
  readonly document: D;
  /** Where the document starts. */
  readonly source: SourceLocation;
  /** Where a field of the document stands (the nearest existing parent when the field is absent). */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation;
}
