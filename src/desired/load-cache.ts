import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";
import type { DesiredStateProblem } from "./desired-state-error.js";
import type { LoadedDocument } from "./loaded-document.js";
import type { Variables } from "./variable-set.js";

/** What loading one file gave: its valid documents, the problems of the others, the documents a selection left out, the variables it names. */
export interface LoadedFile {
  readonly documents: ReadonlyArray<LoadedDocument>;
  readonly problems: ReadonlyArray<DesiredStateProblem>;
  readonly skipped: number;
  readonly used: ReadonlySet<string>;
}

/**
 * The files a long-running process loaded before, by name, text and the values of the variables:
 * a load given the cache (LoadOptions.cache) reads every file again but parses and validates only
 * those whose text or variables changed, and reuses the others' documents as they were (the same
 * objects). One cache serves one set of load options (the same selection, the same verbatim
 * paths): the continuous reconciler keeps one for its life. Only the files of the last load are
 * kept, so a cache never holds more than one desired state.
 */
export class LoadCache {
  #previous = new Map<string, LoadedFile>();
  #current = new Map<string, LoadedFile>();
  /** Files parsed and reused by the last load (for tests and the reconciler's log). */
  parsed = 0;
  reused = 0;

  /** Starts a load: what the last one kept stays findable; what this one does not find again is dropped when it ends. */
  begin(): void {
    this.#current = new Map();
    this.parsed = 0;
    this.reused = 0;
  }

  /** Ends a load: only what it found is kept. */
  end(): void {
    this.#previous = this.#current;
  }

  find(key: string): LoadedFile | undefined {
    const found = this.#previous.get(key) ?? this.#current.get(key);
    if (found) {
      this.#current.set(key, found);
      this.reused += 1;
    }
    return found;
  }

  keep(key: string, file: LoadedFile): void {
    this.#current.set(key, file);
    this.parsed += 1;
  }
}

/** The key of a file's text as read with some variables (or none: read verbatim). */
export function loadCacheKey(name: string, text: string, variables: Variables | undefined): string {
  const hash = createHash("sha256").update(name).update("\u0000").update(text);
  if (variables) hash.update("\u0000variables\u0000").update(canonicalJson(Object.fromEntries([...variables.values].map(([name, given]) => [name, { value: given.value, text: given.text, from: given.from }]))));
  return hash.digest("hex");
}
