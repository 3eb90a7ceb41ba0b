import { createHash } from "node:crypto";
import { modelOf } from "../desired/kinds/registry.js";
import type { LoadedDocument } from "../desired/load.js";
import { readKeyText } from "../desired/read-key.js";
import type { ShardSpec } from "./drift-report.js";
import { needsOfDocument } from "./kinds/registry.js";
import type { ApiDirectory } from "./live-reader.js";

/** Drift shards: which documents `converge drift --shard K/N` checks, so that N shards make exactly the reads of one process. */

/**
 * What a document is sharded by: the read it needs (`api:<apiId>`, `contact:<account>/<type>`,
 * `regions:<account>`). All documents of one API land in one shard, with the API's unmanaged
 * resources: the shard that reads an API's listings is the only one that needs them, and it plans
 * every document that could claim a live route or integration of it. An API named by `{name}`
 * is keyed by its ID when the directory resolves the name to exactly one API.
 */
export function shardKeyOf(loaded: LoadedDocument, directory?: ApiDirectory): string {
  const need = needsOfDocument(loaded.document)[0];
  if (!need) return `${loaded.document.kind}/${modelOf(loaded.document.kind).identity(loaded.document)}`;
  if (need.type === "api" && typeof need.ref !== "string") {
    const ids = directory?.idsByName.get(need.ref.name) ?? [];
    return ids.length === 1 ? `api:${ids[0]}` : readKeyText(need);
  }
  return readKeyText(need);
}

/** Shard (0-based bucket) of a key among `count`: the first 48 bits of its sha256, modulo count. */
export function shardBucketOf(key: string, count: number): number {
  return Number.parseInt(createHash("sha256").update(key).digest("hex").slice(0, 12), 16) % count;
}

/** The documents of shard `index`/`count` (1-based index: shard 1 holds bucket 0). */
export function documentsOfShard(documents: ReadonlyArray<LoadedDocument>, shard: ShardSpec, directory?: ApiDirectory): LoadedDocument[] {
  return documents.filter((loaded) => shardBucketOf(shardKeyOf(loaded, directory), shard.count) === shard.index - 1);
}
