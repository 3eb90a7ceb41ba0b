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
 * Where the documents of one parsed region came from: the file, the region of its text that parses
 * on its own (one YAML document, or a whole JSON file), which document of that region, and where
 * that document's root starts (for a list of documents, the list), when the parser told it.
 */
export interface RegionOrigin {
  readonly file: string;
  readonly text: string;
  readonly lines: LineIndex;
  readonly region: TextRegion;
  /** Index of the document among the region's YAML documents. */
  readonly documentIndex: number;
  readonly regionRootOffset: number | undefined;
}

/**
 * Where a document and its fields stand in its file. It holds no value of the document, so that a
 * validated document keeps it (for messages at plan time) without keeping the parsed value alive.
 * Field positions come from composing the document's region with the yaml library on first use, so
 * only documents with a problem pay for them.
 */
export class DocumentLocator {
  readonly #origin: RegionOrigin;
  /** `[i]` for the i-th document of a list, NO_PREFIX otherwise. */
  readonly #prefix: ReadonlyArray<number>;
  /** Offset in the file where the document starts, when the parser told it; otherwise found on demand. */
  readonly #rootOffset: number | undefined;
  #source: SourceLocation | undefined;

  constructor(origin: RegionOrigin, prefix: ReadonlyArray<number>, rootOffset: number | undefined) {
    this.#origin = origin;
    this.#prefix = prefix;
    this.#rootOffset = rootOffset;
    this.#source = undefined;
  }

  get region(): TextRegion {
    return this.#origin.region;
  }

  /** Where the document starts. */
  get source(): SourceLocation {
    this.#source ??= this.#rootOffset === undefined ? this.locate([]) : this.at(this.#rootOffset);
    return this.#source;
  }

  /** Where a field stands (the nearest existing parent when the field is absent). */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation {
    const origin = this.#origin;
    const composed = composedDocumentOf(origin);
    return this.at(composed ? origin.region.start + offsetOfPath(composed, [...this.#prefix, ...path]) : this.#rootOffset ?? origin.region.start);
  }

  at(offset: number): SourceLocation {
    const { line, column } = this.#origin.lines.position(offset);
    return { file: this.#origin.file, line, column };
  }
}

/** A validated document read from a file (a LoadedDocument), located by its parse's locator. */
export class FileDocument<D> {
  readonly document: D;
  readonly source: SourceLocation;
  readonly #locator: DocumentLocator;

  constructor(document: D, locator: DocumentLocator) {
    this.document = document;
    this.source = locator.source;
    this.#locator = locator;
  }

  locate(path: ReadonlyArray<PropertyKey>): SourceLocation {
    return this.#locator.locate(path);
  }
}

/** `prefix` of every document that is not an item of a list (one array for all of them). */
export const NO_PREFIX: ReadonlyArray<number> = Object.freeze([]);

/** One document as parsed, before validation: its plain value, and where it stands. */
export class RawDocument {
  readonly value: unknown;
  readonly locator: DocumentLocator;

  constructor(value: unknown, origin: RegionOrigin, prefix: ReadonlyArray<number>, rootOffset: number | undefined) {
    this.value = value;
    this.locator = new DocumentLocator(origin, prefix, rootOffset);
  }

  /** The region of the file's text the document was parsed from. */
  get region(): TextRegion {
    return this.locator.region;
  }

  /** Where the document starts. */
  get source(): SourceLocation {
    return this.locator.source;
  }

  /** Where a field stands (the nearest existing parent when the field is absent). */
  locate(path: ReadonlyArray<PropertyKey>): SourceLocation {
    return this.locator.locate(path);
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
function composedDocumentOf(origin: RegionOrigin): YamlLibrary.Document.Parsed | undefined {
  let documents = composedRegions.get(origin.region);
  if (!documents) {
    documents = composeDocuments(origin.text.slice(origin.region.start, origin.region.end));
    composedRegions.set(origin.region, documents);
  }
  const root = origin.regionRootOffset === undefined ? undefined : origin.regionRootOffset - origin.region.start;
  return documents.find((document) => root !== undefined && document.contents?.range?.[0] === root) ?? documents[origin.documentIndex];
}
