import { randomBytes } from "node:crypto";
import { z } from "zod";
import { AccountService } from "./account/account-service.js";
import { GatewayService } from "./gateway/gateway-service.js";
import { IdentityRegistry } from "./identity.js";
import { MapCollection } from "./map-collection.js";
import type { Operation, OperationCall, OperationReply } from "./operation.js";
import { PageTokens } from "./page-token.js";
import type { ErrorDialect } from "./service-error.js";
import { NODE_STATE_FILE_SYSTEM, faultyStateFileSystem } from "./state-file-system.js";
import { Store, StateWriteError, type Mutation } from "./store.js";
import { Throttle } from "./throttle.js";
import type { World } from "./world.js";
import { WorldGate } from "./world-gate.js";

/** How often a handler runs again when state it read was undone by a failed write, before answering 500. */
const MAX_RUNS = 3;
/** Where a world's clock offset is kept (the `meta` collection, so that the state file and checkpoints carry it). */
const CLOCK_OFFSET = "clockOffsetMs";

/**
 * One world at run time, the unit of isolation (docs/manual/testing.md): its own store (the services'
 * state, with its seed kept for resets), identities, throttle and clock, the operations of both
 * services over that state, and the gate that makes a reset or a restore atomic for its requests.
 * The server's world may be durable in a state file; the worlds made at run time live in memory.
 */
export class LiveWorld {
  readonly id: string;
  readonly world: World;
  readonly identities: IdentityRegistry;
  readonly gate = new WorldGate();
  readonly createdAt = new Date();
  readonly durable: boolean;
  readonly #store: Store;
  readonly #meta: MapCollection<string>;
  readonly #operations: ReadonlyMap<string, Operation>;
  readonly #seed: ReadonlyArray<Mutation>;
  readonly #pageTokens: PageTokens;
  #throttle: Throttle;
  #dropped = false;

  private constructor(id: string, world: World, store: Store, state: { readonly meta: MapCollection<string>; readonly pageTokens: PageTokens }, operations: ReadonlyArray<Operation>, durable: boolean) {
    this.id = id;
    this.world = world;
    this.identities = new IdentityRegistry(world.identities);
    this.durable = durable;
    this.#store = store;
    this.#meta = state.meta;
    this.#pageTokens = state.pageTokens;
    this.#operations = new Map(operations.map((operation) => [operation.name, operation]));
    this.#seed = store.snapshot();
    this.#throttle = new Throttle(world.throttle);
  }

  /**
   * The services' state for a world: the store with its paging key, both services' collections, the
   * world's APIs seeded (the seed a reset returns to), and with a state file the store attached to it
   * (what it holds replaces the seeded state).
   */
  static async open(id: string, world: World, stateFile?: string): Promise<LiveWorld> {
    const store = new Store();
    const meta = new MapCollection<string>(z.string());
    store.register("meta", meta);
    meta.map.set("pagingKey", randomBytes(32).toString("base64"));
    const tokens = new PageTokens(() => Buffer.from(meta.map.get("pagingKey")!, "base64"));
    const account = new AccountService(world, store, tokens, () => Date.now() + clockOffsetOf(meta));
    const gateway = new GatewayService(store, tokens);
    await gateway.seed(world);
    const live = new LiveWorld(id, world, store, { meta, pageTokens: tokens }, [...account.operations(), ...gateway.operations()], stateFile !== undefined);
    if (stateFile) {
      const faults = world.faults.stateFile;
      await store.attach(stateFile, {
        fileSystem: faults ? faultyStateFileSystem(NODE_STATE_FILE_SYSTEM, faults) : NODE_STATE_FILE_SYSTEM,
        notice: (message) => process.stderr.write(`converge service: ${message}\n`),
      });
    }
    return live;
  }

  /** Every operation of both services, over this world's state. */
  operations(): Operation[] {
    return [...this.#operations.values()];
  }

  /** This world's handler of an operation of either service's table. */
  operation(name: string): Operation {
    return this.#operations.get(name)!;
  }

  get throttle(): Throttle {
    return this.#throttle;
  }

  /** Whether the world was dropped: a request that waited at its gate is answered as if its token were unknown. */
  get dropped(): boolean {
    return this.#dropped;
  }

  /** How far this world's clock is ahead of the machine's, in milliseconds. */
  get clockOffsetMs(): number {
    return clockOffsetOf(this.#meta);
  }

  /**
   * Runs an operation so that its answer depends only on durable state. A handler reads state
   * synchronously before its first await (its commit, if any, is that await), so the store's mark
   * taken right after the call covers all it read. When that state is not durable yet, the answer
   * waits for the sync; if the sync fails and the state is undone, the handler runs again (a handler
   * whose own commit failed is answered 500: nothing of it was kept, and the client may retry).
   */
  async run(operation: Operation, call: OperationCall, dialect: ErrorDialect): Promise<OperationReply> {
    const store = this.#store;
    for (let run = 1; ; run += 1) {
      if (store.failure) throw dialect.internal(store.failure.message);
      let pending: OperationReply | Promise<OperationReply> | undefined;
      let failure: { readonly error: unknown } | undefined;
      try {
        pending = operation.handle(call);
      } catch (error) {
        failure = { error };
      }
      const mark = store.mark();
      let reply: OperationReply | undefined;
      if (!failure) {
        try {
          reply = await pending!;
        } catch (error) {
          failure = { error };
        }
      }
      if (failure?.error instanceof StateWriteError) {
        throw dialect.internal(`the change could not be saved to the state file (${failure.error.reason}), so it was not applied; retry later`);
      }
      const durable = store.whenDurable(mark);
      if (durable === undefined || (await durable)) {
        if (failure) throw failure.error;
        return reply!;
      }
      if (run === MAX_RUNS) throw dialect.internal("the state this answer read was undone by a failed write to the state file; retry later");
    }
  }

  /** Brings the state back to the world's seed (its clock and throttle too), atomically for its requests; see {@link replace}. */
  reset(alongside?: () => void): Promise<void> {
    return this.replace(this.#seed, alongside);
  }

  /**
   * Replaces the whole state (a checkpoint) and the throttle's buckets, atomically for its requests:
   * after those in flight have finished, before any other enters; `alongside` runs in the same step
   * (what else a reset brings back). Resolves once the state is durable.
   */
  replace(mutations: ReadonlyArray<Mutation>, alongside?: () => void): Promise<void> {
    return this.gate.exclusive(async () => {
      const durable = this.#store.replace(mutations);
      this.#throttle = new Throttle(this.world.throttle);
      alongside?.();
      try {
        await durable;
      } finally {
        // the paging key is state: replaced with it, or brought back with the file when that failed
        this.#pageTokens.reload();
      }
    });
  }

  /** The whole state once the requests in flight have finished: what a checkpoint keeps. */
  snapshot(): Promise<Mutation[]> {
    return this.gate.exclusive(() => this.#store.snapshot());
  }

  /** What each stored collection's values look like: a checkpoint restored here is checked against them. */
  schemas() {
    return this.#store.schemas();
  }

  /** Moves the world's clock `ms` forward; answers the new offset once it is durable. */
  async advanceClock(ms: number): Promise<number> {
    const offset = this.clockOffsetMs + ms;
    await this.#store.commit([{ collection: "meta", key: CLOCK_OFFSET, value: String(offset) }]);
    return offset;
  }

  /** Drops the world once its requests in flight have finished; later ones are refused. */
  drop(): Promise<void> {
    return this.gate.exclusive(async () => {
      this.#dropped = true;
      await this.#store.close();
    });
  }

  /** Flushes the state file. */
  close(): Promise<void> {
    return this.#store.close();
  }
}

function clockOffsetOf(meta: MapCollection<string>): number {
  const text = meta.map.get(CLOCK_OFFSET);
  return text === undefined ? 0 : Number(text);
}
