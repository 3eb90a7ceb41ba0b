import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { parseJsonWithinDepth } from "../input-limits/nesting.js";
import { canonicalJson } from "./canonical-json.js";
import { modelOf } from "./kinds/registry.js";
import type { Document } from "./schema.js";

/**
 * A cdktf stack's inventory: the identity documents of the resources its desired state makes exist
 * (docs/manual/cdktf.md). The stack records it in terraform state at each deploy; at the next
 * one, what the previous inventory lists and the new desired state no longer declares is deleted.
 * The constructs compute it at synth, the CLI from the synthesized file: both from the documents
 * as the desired-state schemas parse them, with these functions.
 */

/** An identity document: kind, API or account, and the fields that select the live resource. */
export type IdentityDocument = Readonly<Record<string, unknown>>;

/** Characters of one inventory chunk: each is one environment variable, which Linux caps at 128 KiB. */
export const INVENTORY_CHUNK_CHARS = 100_000;
/** Chunks a stack's inventory may take (the provisioner's environment holds them all). */
export const INVENTORY_MAX_CHUNKS = 8;

/** The identity document of a desired-state document, or undefined when converge never deletes its kind or it declares `ensure: absent`. */
export function identityOf(document: Document): IdentityDocument | undefined {
  if ("ensure" in document && document.ensure === "absent") return undefined;
  return modelOf(document.kind).deletionIdentity?.(document);
}

/** The inventory of a stack's documents, in their order, without repeats. */
export function inventoryOf(documents: ReadonlyArray<Document>): IdentityDocument[] {
  return uniqueIdentities(documents.map(identityOf));
}

/** Identity documents in their order, without repeats (compared as canonical JSON) nor undefined ones. */
export function uniqueIdentities(identities: ReadonlyArray<IdentityDocument | undefined>): IdentityDocument[] {
  const seen = new Set<string>();
  const entries: IdentityDocument[] = [];
  for (const identity of identities) {
    if (!identity) continue;
    const key = canonicalJson(identity);
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push(identity);
  }
  return entries;
}

/** The entries of `previous` that `current` no longer lists (compared as canonical JSON). */
export function removedEntries(previous: ReadonlyArray<IdentityDocument>, current: ReadonlyArray<IdentityDocument>): IdentityDocument[] {
  const kept = new Set(current.map((entry) => canonicalJson(entry)));
  return previous.filter((entry) => !kept.has(canonicalJson(entry)));
}

/**
 * The inventory as text that terraform and a shell pass through untouched: canonical JSON, gzip
 * (level 9, fixed), base64, cut into chunks of INVENTORY_CHUNK_CHARS. Empty inventory: one empty chunk.
 */
export function encodeInventory(entries: ReadonlyArray<IdentityDocument>): string[] {
  if (entries.length === 0) return [""];
  const text = gzipSync(canonicalJson(entries), { level: 9 }).toString("base64");
  const chunks: string[] = [];
  for (let offset = 0; offset < text.length; offset += INVENTORY_CHUNK_CHARS) chunks.push(text.slice(offset, offset + INVENTORY_CHUNK_CHARS));
  return chunks;
}

/** The entries of encodeInventory's chunks; throws a message saying what is wrong (never the content). */
export function decodeInventory(chunks: ReadonlyArray<string>): IdentityDocument[] {
  const text = chunks.join("");
  if (text === "") return [];
  let value: unknown;
  try {
    value = parseJsonWithinDepth(gunzipSync(Buffer.from(text, "base64")).toString("utf8"));
  } catch (error) {
    throw new Error(`is not an inventory written by converge's constructs (gzip-compressed JSON in base64): ${(error as Error).message}`);
  }
  if (!Array.isArray(value) || !value.every((entry) => entry !== null && typeof entry === "object" && !Array.isArray(entry))) {
    throw new Error("is not an inventory written by converge's constructs (expected an array of identity documents)");
  }
  return value as IdentityDocument[];
}

/** sha256 (hex) of a text: how a provisioner checks it reads the desired-state file terraform planned with. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
