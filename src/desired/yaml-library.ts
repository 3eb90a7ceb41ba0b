import { createRequire } from "node:module";
import type * as YamlLibrary from "yaml";

let library: typeof YamlLibrary | undefined;

/**
 * The yaml library, loaded on first use: it composes a document with the position of every node,
 * which converge needs only to locate problems (and to parse what js-yaml refuses, so that the
 * messages stay the library's own). A run whose desired state is valid never loads it.
 */
export function yamlLibrary(): typeof YamlLibrary {
  library ??= createRequire(import.meta.url)("yaml") as typeof YamlLibrary;
  return library;
}

/**
 * The documents of a YAML text, composed with source positions (offsets into `text`). The library
 * speaks only through what it returns: with its default `logLevel` ("warn") it would also print
 * process warnings of its own on converge's stderr (a collection as a mapping key: "Keys with
 * collection values will be stringified…"), where converge's problem about the same field already
 * stands. Its errors are the documents' `errors`, which converge words as problems.
 */
export function composeDocuments(text: string): YamlLibrary.Document.Parsed[] {
  const parsed = yamlLibrary().parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true, logLevel: "error" });
  return Array.isArray(parsed) ? parsed : [];
}

/**
 * The offset where a field stands in a composed document: a mapping's field where its key is
 * written (a block value starts on a later line), else its node; the nearest existing parent when
 * the field is absent; the document's start when nothing of the path exists.
 */
export function offsetOfPath(document: YamlLibrary.Document.Parsed, path: ReadonlyArray<PropertyKey>): number {
  const { isMap, isScalar } = yamlLibrary();
  for (let length = path.length; length >= 0; length -= 1) {
    const full = path.slice(0, length);
    const parent = length > 0 ? document.getIn(full.slice(0, -1), true) : undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => (isScalar(item.key) ? item.key.value : item.key) === full[full.length - 1]);
      if (pair && isScalar(pair.key) && pair.key.range) return pair.key.range[0];
    }
    const node = document.getIn(full, true) as YamlLibrary.Node | undefined;
    if (node && typeof node === "object" && node.range) return node.range[0];
  }
  return 0;
}
