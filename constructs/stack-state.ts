import type { IConstruct } from "constructs";
import { encodeInventory, INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS, inventoryOf, sha256Hex, type IdentityDocument } from "../src/desired/inventory.js";
import { declaredResourcesOf, documentHash, type DeclaredResource } from "./documents.js";
import { inventoryTooLarge } from "./errors.js";

/**
 * What a stack's converge resources amount to at synth, read when the construct tree is complete:
 * the desired-state file, its sha256, each construct's document hash, and the inventory. Every value
 * is computed from the tree each time it is asked for (the tree does not change during a synth).
 */
export class StackState {
  constructor(readonly stack: IConstruct) {}

  resources(): DeclaredResource[] {
    return declaredResourcesOf(this.stack);
  }

  /** converge.desired.json: the documents of the stack's constructs, in construct-tree order. */
  desiredText(): string {
    return `${JSON.stringify(this.resources().map((resource) => resource.document), null, 2)}\n`;
  }

  desiredSha256(): string {
    return sha256Hex(this.desiredText());
  }

  /** Construct path below the stack → sha256 of its document: the keys `terraform plan` shows change. */
  documentHashes(): Record<string, string> {
    const prefix = this.stack.node.path === "" ? "" : `${this.stack.node.path}/`;
    return Object.fromEntries(this.resources().map((resource) => [resource.node.path.slice(prefix.length), documentHash(resource.document)]));
  }

  inventory(): IdentityDocument[] {
    return inventoryOf(this.resources().map((resource) => resource.document));
  }

  inventoryChunks(): string[] {
    return encodeInventory(this.inventory());
  }

  problems(): string[] {
    const chunks = this.inventoryChunks().length;
    return chunks > INVENTORY_MAX_CHUNKS ? [inventoryTooLarge(this.stack.node.path, this.inventory().length, chunks * INVENTORY_CHUNK_CHARS, INVENTORY_MAX_CHUNKS * INVENTORY_CHUNK_CHARS)] : [];
  }
}
