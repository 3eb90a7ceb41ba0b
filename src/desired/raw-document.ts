import type { SourceLocation } from "./desired-state-error.js";
import type { LineIndex } from "./line-index.js";
import type * as YamlLibrary from "yaml";
import { composeDocuments, offsetOfPath } from "./yaml-library.js";

/** A part of a file's text, `[start, end)`. */
export interface TextRegion {
  readonly start: number;
  readonly end: number;
}

/**
 * Where a document came from: the file, the region of its text that parses on its own (one YAML
 * document, or a whole JSON file), which document of that region, and the array index when the
 * region's root is a list of documents.
 */
export interface DocumentOrigin {
  readonly file: string;
  readonly text: string;
  readonly lines: LineIndex;
  readonly region: TextRegion;
  /** Index of the document among the region's YAML documents. */
  readonly documentIndex: number;
  /** `[i]` for the i-th document of a list, `[]` otherwise. */
  readonly prefix: ReadonlyArray<number>;
  /** Offset in the file where the document starts, when the parser told it; otherwise found on demand. */
  readonly rootOffset: number | undefined;
  /** Offset in the file where the root of the region's document starts (for a list of documents, the list). */
  readonly regionRootOffset: number | undefined;
}

/**
 * One document as parsed, before validation: its plain value, where it starts, and where any of
 * its fields stands. Field positions come from composing the document's region with the yaml
 * library on first use, so only documents with a problem pay for them.
 */
export class RawDocument {
  readonly value: unknown;
  readonly #origin: DocumentOrigin;
  #source: SourceLocation | undefined;

  constructor(value: unknown, origin: DocumentOrigin) {
    this.value = value;
    this.#origin = origin;
  }

  get file(): string {
    return this.#origin.file;
  }

  /** The region of the file's text the document was parsed from. */
  get region(): TextRegion {
    return this.#origin.region;
  }

  /** Where the document starts. */
  get source(): SourceLocation {
    this.#source ??= this.#origin.rootOffset === undefined ? this.locate([]) : this.at(this.#origin.rootOffset);
    return this.#source;
  }

  /** Where a field stands (the nearest existing parent when the field is absent). */
  readonly locate = (path: ReadonlyArray<PropertyKey>): SourceLocation => {
    const origin = this.#origin;
    const composed = composedDocumentOf(origin);
    return this.at(composed ? origin.region.start + offsetOfPath(composed, [...origin.prefix, ...path]) : origin.rootOffset ?? origin.region.start);
  };

  at(offset: number): SourceLocation {
    const { line, column } = this.#origin.lines.position(offset);
    return { file: this.#origin.file, line, column };
  }
}

const composedRegions = new WeakMap<TextRegion, YamlLibrary.Document.Parsed[]>();

/** Keeps the documents a region was already composed into, for locating fields in them later. */
export function rememberComposed(region: TextRegion, documents: YamlLibrary.Document.Parsed[]): void {
  composedRegions.set(region, documents);
}

/**
 * The document of `origin` composed by the yaml library (once per region): the one whose root
 * starts where the parser saw it start, else the one at the same index.
 */
function composedDocumentOf(origin: DocumentOrigin): YamlLibrary.Document.Parsed | undefined {
  let documents = composedRegions.get(origin.region);
  if (!documents) {
    documents = composeDocuments(origin.text.slice(origin.region.start, origin.region.end));
    composedRegions.set(origin.region, documents);
  }
  const root = origin.regionRootOffset === undefined ? undefined : origin.regionRootOffset - origin.region.start;
  return documents.find((document) => root !== undefined && document.contents?.range?.[0] === root) ?? documents[origin.documentIndex];
}
