import type { IConstruct } from "constructs";
import { encodeInventory, INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS, inventoryOf, sha256Hex, type IdentityDocument } from "../src/desired/inventory.js";
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

const factsOf = memoizedByResources((resources: ReadonlyArray<DeclaredResource>): StackFacts => {
  const desiredText = `${JSON.stringify(resources.map((resource) => resource.document), null, 2)}\n`;
  const inventory = inventoryOf(resources.map((resource) => resource.document));
  return {
    desiredText,
    desiredSha256: sha256Hex(desiredText),
    documentHashes: Object.fromEntries(resources.map((resource) => [resource.triggerKey, documentHash(resource.document)])),
    inventory,
    inventoryChunks: encodeInventory(inventory),
  };
});

export class StackState {
  constructor(readonly stack: IConstruct) {}

  facts(): StackFacts {
    return factsOf(this.stack);
  }

  problems(): string[] {
    const { inventory, inventoryChunks } = this.facts();
    return inventoryChunks.length > INVENTORY_MAX_CHUNKS ? [inventoryTooLarge(this.stack.node.path, inventory.length, inventoryChunks.length * INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS * INVENTORY_CHUNK_CHARS)] : [];
  }
}
