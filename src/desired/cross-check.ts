import { apiRefKey } from "./api-ref.js";
import type { DesiredStateProblem } from "./desired-state-error.js";
import { problemAt, type ApiKeyOf, type DocumentIndex } from "./kinds/kind-model.js";
import { modelOf } from "./kinds/registry.js";
import type { LoadedDocument } from "./loaded-document.js";
import type { ProtocolType } from "../contract/gateway.js";

export interface CrossCheckOptions {
  /**
   * API references resolved to their apiIds (at plan time): an apiId and a name of the same API then
   * compare equal, and the per-protocol rules are left to the live protocol. @default as written
   */
  readonly resolvedApiKey?: ApiKeyOf;
}

/**
 * Checks the documents against each other: one document per identity, references that name
 * declared documents, and the per-protocol rules where an `Api` document declares the protocol.
 * Offline (the default) API references are compared as written, and an apiId is never taken for a
 * different API than a name: what only resolving the name can tell is checked again at plan time.
 */
export function crossCheckDocuments(documents: ReadonlyArray<LoadedDocument>, options: CrossCheckOptions = {}): DesiredStateProblem[] {
  return crossCheckEachDocument(documents, options).map(({ problem }) => problem);
}

/** A problem of one document, with the document it is about (by reference). */
export interface DocumentProblem {
  readonly document: LoadedDocument;
  readonly problem: DesiredStateProblem;
}

/** crossCheckDocuments, each problem with its document (plan maps problems back to their documents by it), in the same order. */
export function crossCheckEachDocument(documents: ReadonlyArray<LoadedDocument>, options: CrossCheckOptions = {}): DocumentProblem[] {
  const apiKey = options.resolvedApiKey ?? apiRefKey;
  const protocols = new Map<string, ProtocolType>();
  if (!options.resolvedApiKey) {
    for (const loaded of documents) {
      const declared = modelOf(loaded.document.kind).declaredProtocol?.(loaded.document, apiKey);
      if (declared) protocols.set(declared.apiKey, declared.protocolType);
    }
  }
  const memos = new Map<string, unknown>();
  const index: DocumentIndex = {
    documents,
    apiKey,
    resolved: options.resolvedApiKey !== undefined,
    declaredProtocol: (key) => protocols.get(key),
    memo<T>(key: string, build: () => T): T {
      if (!memos.has(key)) memos.set(key, build());
      return memos.get(key) as T;
    },
  };
  const problems: DocumentProblem[] = [];
  const seen = new Map<string, LoadedDocument>();
  for (const loaded of documents) {
    const model = modelOf(loaded.document.kind);
    const identity = `${loaded.document.kind}/${model.identity(loaded.document, apiKey)}`;
    const first = seen.get(identity);
    if (first) {
      problems.push({ document: loaded, problem: problemAt(loaded, [], `${identity} is declared twice: first at ${first.source.file}:${first.source.line}; `
        + `each resource may be declared once`) });
    } else {
      seen.set(identity, loaded);
    }
    // a kind's cross-checks find problems of the document they check (problemAt(loaded, …))
    for (const problem of model.crossCheck(loaded, index)) problems.push({ document: loaded, problem });
  }
  return problems;
}
