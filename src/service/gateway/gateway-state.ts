import { randomBytes } from "node:crypto";
import { z } from "zod";
import { Api, Integration, Route } from "../../contract/gateway.js";
import type { Collection, Mutation } from "../store.js";

/** An API with its owner and creation sequence (the keyset of listings). */
export interface StoredApi {
  readonly api: Api;
  readonly owner: string;
  readonly seq: number;
}

/** A route or an integration as stored: only the fields that were set, plus its creation sequence. */
export interface StoredRoute {
  readonly route: Route;
  readonly seq: number;
}

export interface StoredIntegration {
  readonly integration: Integration;
  readonly seq: number;
}

/** One API with its routes and integrations, each map in creation order. */
export interface ApiRecord {
  readonly stored: StoredApi;
  readonly routes: Map<string, StoredRoute>;
  readonly integrations: Map<string, StoredIntegration>;
}

const Seq = z.number().int().min(1);
/** What the state file holds for each collection. */
const StoredApiSchema = z.object({ api: Api, owner: z.string(), seq: Seq });
const StoredRouteSchema = z.object({ route: Route, seq: Seq });
const StoredIntegrationSchema = z.object({ integration: Integration, seq: Seq });

const ID_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/**
 * The gateway's state: APIs owning their routes and integrations, persisted through three store
 * collections (`apis`, `routes`, `integrations`; child keys are `<apiId>/<id>`).
 */
export class GatewayState {
  readonly apis = new Map<string, ApiRecord>();
  readonly #childIds = new Set<string>();
  #nextSeq = 1;

  readonly apiCollection: Collection = {
    schema: StoredApiSchema,
    restore: (key, value) => {
      if (value === null) {
        const record = this.apis.get(key);
        for (const id of [...(record?.routes.keys() ?? []), ...(record?.integrations.keys() ?? [])]) this.#childIds.delete(id);
        this.apis.delete(key);
        return;
      }
      const stored = value as StoredApi;
      const existing = this.apis.get(key);
      this.apis.set(key, { stored, routes: existing?.routes ?? new Map(), integrations: existing?.integrations ?? new Map() });
      this.#see(stored.seq);
    },
    entries: () => [...this.apis].map(([id, record]) => [id, record.stored] as const),
    clear: () => {
      this.apis.clear();
      this.#childIds.clear();
    },
  };

  readonly routeCollection: Collection = this.#childCollection("routes", StoredRouteSchema, (value: StoredRoute) => value.route.routeId);
  readonly integrationCollection: Collection =
    this.#childCollection("integrations", StoredIntegrationSchema, (value: StoredIntegration) => value.integration.integrationId);

  /** The next creation sequence number (monotonic across restarts). */
  takeSeq(): number {
    return this.#nextSeq++;
  }

  newApiId(): string {
    let id: string;
    do id = randomId(10); while (this.apis.has(id));
    return id;
  }

  /** A route or integration ID unique across the whole service. */
  newChildId(): string {
    let id: string;
    do id = randomId(7); while (this.#childIds.has(id));
    this.#childIds.add(id);
    return id;
  }

  #see(seq: number): void {
    if (seq >= this.#nextSeq) this.#nextSeq = seq + 1;
  }

  #childCollection<V extends { seq: number }>(kind: "routes" | "integrations", schema: z.ZodType, idOf: (value: V) => string): Collection {
    return {
      schema,
      restore: (key, value) => {
        const slash = key.indexOf("/");
        const apiId = key.slice(0, slash);
        const childId = key.slice(slash + 1);
        const record = this.apis.get(apiId);
        if (!record) {
          throw new Error(`holds ${kind === "routes" ? "route" : "integration"} ${JSON.stringify(childId)} `
            + `of API ${JSON.stringify(apiId)}, which does not exist`);
        }
        const map = record[kind] as unknown as Map<string, V>;
        if (value === null) {
          map.delete(childId);
          this.#childIds.delete(childId);
          return;
        }
        const stored = value as V;
        map.set(idOf(stored), stored);
        this.#childIds.add(idOf(stored));
        this.#see(stored.seq);
      },
      entries: () => this.#childEntries(kind),
      // children are cleared with their APIs (the `apis` collection)
      clear: () => undefined,
    };
  }

  #childEntries(kind: "routes" | "integrations"): Array<readonly [string, unknown]> {
    const out: Array<readonly [string, unknown]> = [];
    for (const [apiId, record] of this.apis) for (const [id, value] of record[kind]) out.push([`${apiId}/${id}`, value]);
    return out;
  }
}

/** Mutations that persist a route, an integration or an API. */
export const gatewayMutations = {
  api: (apiId: string, value: StoredApi | null): Mutation => ({ collection: "apis", key: apiId, value }),
  route: (apiId: string, routeId: string, value: StoredRoute | null): Mutation => ({ collection: "routes", key: `${apiId}/${routeId}`, value }),
  integration: (apiId: string, integrationId: string, value: StoredIntegration | null): Mutation =>
    ({ collection: "integrations", key: `${apiId}/${integrationId}`, value }),
};

function randomId(length: number): string {
  const bytes = randomBytes(length * 2);
  let id = "";
  for (let i = 0; i < bytes.length && id.length < length; i += 1) {
    const byte = bytes[i]!;
    if (byte < 252) id += ID_ALPHABET[byte % 36];
  }
  return id.length === length ? id : randomId(length);
}
