import type { DesiredStateProblem } from "./desired-state-error.js";
import type { LoadedDocument } from "./load.js";
import type { ApiDocument } from "./schema.js";
import { apiRefKey, problemAt, type DocumentIndex } from "../reconcile/kinds/kind-handler.js";
import { handlerOf } from "../reconcile/kinds/registry.js";

/**
 * Checks the documents against each other, before any call: one document per identity, references
 * that name declared documents, and the per-protocol rules where an `Api` document declares the protocol.
 */
export function crossCheckDocuments(documents: ReadonlyArray<LoadedDocument>): DesiredStateProblem[] {
  const problems: DesiredStateProblem[] = [];
  const protocols = new Map<string, ApiDocument["spec"]["protocolType"]>();
  for (const loaded of documents) {
    if (loaded.document.kind === "Api" && loaded.document.spec.protocolType) protocols.set(apiRefKey(loaded.document.api), loaded.document.spec.protocolType);
  }
  const memos = new Map<string, unknown>();
  const index: DocumentIndex = {
    documents,
    declaredProtocol: (key) => protocols.get(key),
    memo<T>(key: string, build: () => T): T {
      if (!memos.has(key)) memos.set(key, build());
      return memos.get(key) as T;
    },
  };
  const seen = new Map<string, LoadedDocument>();
  for (const loaded of documents) {
    const handler = handlerOf(loaded.document.kind);
    const identity = `${loaded.document.kind}/${handler.identity(loaded.document)}`;
    const first = seen.get(identity);
    if (first) {
      problems.push(problemAt(loaded, [], `${identity} is declared twice: first at ${first.source.file}:${first.source.line}; each resource may be declared once`));
    } else {
      seen.set(identity, loaded);
    }
    problems.push(...handler.crossCheck(loaded, index));
  }
  return problems;
}
