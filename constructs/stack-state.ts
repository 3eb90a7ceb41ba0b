import type { IConstruct } from "constructs";
import { encodeInventory, INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS, sha256Hex, uniqueIdentities, type IdentityDocument } from "../src/desired/inventory.js";
import { documentHash, memoizedByResources, type DeclaredResource } from "./documents.js";
import { inventoryTooLarge } from "./errors.js";

/**
 * What a stack's converge resources amount to at synth, read when the construct tree is complete:
 * the desired-state file, its sha256, each construct's document hash, and the inventory. Computed
 * once for a given list of constructs (the resources' triggers, provisioners and the file all ask).
 */
export interface StackFacts {
  /** converge.desired.json: the documents of the stack's constructs, in construct-tree order. */
  readonly desiredText: string;
  readonly desiredSha256: string;
  /** Construct path below the stack → sha256 of its document: the keys `terraform plan` shows change. */
  readonly documentHashes: Readonly<Record<string, string>>;
  readonly inventory: ReadonlyArray<IdentityDocument>;
  readonly inventoryChunks: ReadonlyArray<string>;
}

export const stackFacts = memoizedByResources((resources: ReadonlyArray<DeclaredResource>): StackFacts => {
  const desiredText = `${JSON.stringify(resources.map((resource) => resource.document), null, 2)}\n`;
  const inventory = uniqueIdentities(resources.map((resource) => resource.identityDocument));
  return {
    desiredText,
    desiredSha256: sha256Hex(desiredText),
    documentHashes: Object.fromEntries(resources.map((resource) => [resource.triggerKey, documentHash(resource.document)])),
    inventory,
    inventoryChunks: encodeInventory(inventory),
  };
});

/** A stack whose inventory would not fit the provisioner's environment: refused at synth. */
export function stackProblems(stack: IConstruct): string[] {
  const { inventory, inventoryChunks } = stackFacts(stack);
  return inventoryChunks.length > INVENTORY_MAX_CHUNKS ? [inventoryTooLarge(stack.node.path, inventory.length, inventoryChunks.length * INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS * INVENTORY_CHUNK_CHARS)] : [];
}
