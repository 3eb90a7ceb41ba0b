import { parseWorld } from "../world.js";
import { LiveWorld } from "../live-world.js";
import { accountErrors } from "../service-error.js";
import { StateFileError, parseStateFile, snapshotLine, type ParsedStateFile, type ValueSchemas } from "../state-file.js";
import type { Mutation } from "../store.js";

/** A saved state: its name, the world it was saved from (none when uploaded), and the state itself. */
export interface Checkpoint {
  readonly name: string;
  readonly world: string | undefined;
  readonly savedAt: Date;
  readonly mutations: ReadonlyArray<Mutation>;
  /** The state as a state file (format 2, one snapshot line): what `GET` downloads and `--state-file` starts from. */
  readonly text: string;
}

/** How many checkpoints one server keeps at once. */
export const MAX_CHECKPOINTS = 1000;

/**
 * Named checkpoints of whole worlds, kept in memory by the server: saved from one world, restored
 * into any (the same world, or another: a suite's fixture copied into each worker's world), and
 * downloaded or uploaded as a state file.
 */
export class Checkpoints {
  readonly #byName = new Map<string, Checkpoint>();

  get(name: string): Checkpoint | undefined {
    return this.#byName.get(name);
  }

  list(): Checkpoint[] {
    return [...this.#byName.values()];
  }

  delete(name: string): boolean {
    return this.#byName.delete(name);
  }

  /** Saves a world's whole state once its requests in flight have finished; a checkpoint of the same name is replaced. */
  async save(name: string, world: LiveWorld): Promise<Checkpoint> {
    this.#checkRoom(name);
    const mutations = await world.snapshot();
    return this.#keep({ name, world: world.id, savedAt: new Date(), mutations, text: snapshotLine(0, mutations) });
  }

  /**
   * Keeps a state file sent by a client (a checkpoint downloaded before, or any `--state-file`) after
   * checking it as a start from it would: its format and version, every line's checksum, every value's
   * shape, and that its changes replay. Refuses anything else with the reason, changing nothing.
   */
  async upload(name: string, bytes: Buffer, schemas: ValueSchemas): Promise<Checkpoint> {
    this.#checkRoom(name);
    let parsed: ParsedStateFile;
    try {
      parsed = parseStateFile(`checkpoint ${name}`, bytes, schemas);
    } catch (error) {
      if (!(error instanceof StateFileError)) throw error;
      throw refusal(error.message.split("\n")[0]!);
    }
    if (parsed.tornTail) {
      throw refusal(`checkpoint ${name} ends in a line without its newline (line ${parsed.tornTail.line}): expected a whole state file`);
    }
    const mutations = finalState(parsed, schemas);
    const scratch = await LiveWorld.open("scratch", parseWorld({}));
    try {
      await scratch.replace(mutations);
    } catch (error) {
      throw refusal(`checkpoint ${name} cannot be restored: ${(error as Error).message}`);
    }
    return this.#keep({ name, world: undefined, savedAt: new Date(), mutations, text: snapshotLine(0, mutations) });
  }

  #checkRoom(name: string): void {
    if (!this.#byName.has(name) && this.#byName.size >= MAX_CHECKPOINTS) {
      throw accountErrors.conflict(`the server keeps at most ${MAX_CHECKPOINTS} checkpoints: delete one (DELETE /_converge/checkpoints/NAME) before saving ${name}`);
    }
  }

  #keep(checkpoint: Checkpoint): Checkpoint {
    this.#byName.set(checkpoint.name, checkpoint);
    return checkpoint;
  }
}

function refusal(message: string) {
  return accountErrors.validation(message, [{ name: "(body)", message }]);
}

/** The state a parsed file ends in, as one snapshot: every change replayed, collections in the store's order. */
function finalState(parsed: ParsedStateFile, schemas: ValueSchemas): Mutation[] {
  const collections = new Map<string, Map<string, unknown>>([...schemas.keys()].map((name) => [name, new Map()]));
  for (const chunk of parsed.chunks) {
    for (const mutation of chunk.mutations) {
      const entries = collections.get(mutation.collection)!;
      if (mutation.value === null) entries.delete(mutation.key);
      else entries.set(mutation.key, mutation.value);
    }
  }
  return [...collections].flatMap(([collection, entries]) => [...entries].map(([key, value]) => ({ collection, key, value })));
}
