import { randomBytes } from "node:crypto";
import { SERVER_WORLD_ID } from "../contract/control.js";
import { UNKNOWN_TOKEN, bearerToken, type Identity } from "./identity.js";
import { LiveWorld } from "./live-world.js";
import type { World } from "./world.js";

/** Who a request comes from: its world, and its identity when the token names one (else why not, for AccessDenied). */
export interface Caller {
  readonly world: LiveWorld;
  readonly identity: Identity | undefined;
  readonly denied: string;
}

/** How many worlds may be made at run time on one server. */
export const MAX_WORLDS = 1000;

/**
 * Every world of the server: its own (`default`, from its world file) and those made at run time, each
 * token belonging to exactly one. A request's token picks its world; a token no world knows is the
 * server world's to refuse, so that its answer is what it always was.
 */
export class Worlds {
  readonly server: LiveWorld;
  readonly #byId = new Map<string, LiveWorld>();
  readonly #byToken = new Map<string, { readonly world: LiveWorld; readonly identity: Identity }>();

  constructor(server: LiveWorld) {
    this.server = server;
    this.#add(server);
  }

  caller(authorization: string | undefined): Caller {
    const parsed = bearerToken(authorization);
    if ("denied" in parsed) return { world: this.server, identity: undefined, denied: parsed.denied };
    const found = this.#byToken.get(parsed.token);
    if (found === undefined) return { world: this.server, identity: undefined, denied: UNKNOWN_TOKEN };
    return { world: found.world, identity: found.identity, denied: UNKNOWN_TOKEN };
  }

  get(id: string): LiveWorld | undefined {
    return this.#byId.get(id);
  }

  all(): LiveWorld[] {
    return [...this.#byId.values()];
  }

  /** The worlds made at run time. */
  get made(): number {
    return this.#byId.size - 1;
  }

  /** Whether a token already belongs to an identity of some world. */
  holds(token: string): boolean {
    return this.#byToken.has(token);
  }

  /** Makes a world in memory from a validated world file whose tokens belong to no other world. */
  async create(world: World): Promise<LiveWorld> {
    let id: string;
    do id = `w-${randomBytes(6).toString("hex")}`; while (this.#byId.has(id));
    const live = await LiveWorld.open(id, world);
    this.#add(live);
    return live;
  }

  /** Drops a world made at run time once its requests in flight have finished: its tokens stop working. */
  async drop(live: LiveWorld): Promise<void> {
    if (live === this.server) throw new Error(`the server's world (${SERVER_WORLD_ID}) cannot be dropped`);
    for (const [token] of live.identities.entries()) this.#byToken.delete(token);
    this.#byId.delete(live.id);
    await live.drop();
  }

  #add(live: LiveWorld): void {
    this.#byId.set(live.id, live);
    for (const [token, identity] of live.identities.entries()) this.#byToken.set(token, { world: live, identity });
  }
}
