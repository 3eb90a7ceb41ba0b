import { loadDesiredState, type LoadedDocument } from "../desired/load.js";
import { handlerOf } from "../reconcile/kinds/registry.js";
import { apiRefKey } from "../reconcile/kinds/kind-handler.js";
import { CliError } from "./cli-error.js";

/**
 * The documents a command works on: loaded from -f paths, then narrowed by --target KIND/NAME
 * (a targeted route brings along the integration it targets by name, as terraform's -target does).
 */
export async function loadDocuments(paths: ReadonlyArray<string>, targets: ReadonlyArray<string> = []): Promise<LoadedDocument[]> {
  if (paths.length === 0) throw new CliError("no desired state: pass -f FILE_OR_DIRECTORY (repeatable)");
  const { documents } = await loadDesiredState(paths);
  if (targets.length === 0) return [...documents];
  const addressOf = (loaded: LoadedDocument) => `${loaded.document.kind}/${handlerOf(loaded.document.kind).displayName(loaded.document)}`;
  const identityOf = (loaded: LoadedDocument) => `${loaded.document.kind}/${handlerOf(loaded.document.kind).identity(loaded.document)}`;
  const selected = new Set(documents.filter((loaded) => targets.includes(addressOf(loaded)) || targets.includes(identityOf(loaded))));
  const unmatched = targets.filter((target) => !documents.some((loaded) => addressOf(loaded) === target || identityOf(loaded) === target));
  if (unmatched.length > 0) {
    const known = documents.slice(0, 8).map(addressOf).join(", ");
    throw new CliError(`--target ${unmatched.map((t) => JSON.stringify(t)).join(", ")} matches no document: expected KIND/NAME such as ${known}`);
  }
  for (const loaded of [...selected]) {
    const document = loaded.document;
    if (document.kind === "Route" && document.spec.target && typeof document.spec.target === "object") {
      const name = document.spec.target.integration;
      const dependency = documents.find((other) => other.document.kind === "Integration" && other.document.name === name && apiRefKey(other.document.api) === apiRefKey(document.api));
      if (dependency) selected.add(dependency);
    }
  }
  return documents.filter((loaded) => selected.has(loaded));
}
