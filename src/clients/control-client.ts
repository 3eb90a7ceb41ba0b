import type { Dispatcher } from "undici";
import type { z } from "zod";
import {
  CheckpointAnswer,
  ClockAnswer,
  FaultRule,
  FaultRules,
  Health,
  JournalAnswer,
  RemovedAnswer,
  ResetAnswer,
  RestoreAnswer,
  WorldGrant,
  WorldList,
  type FaultRuleRequest,
  type JournalEntry,
  type WorldSummary,
} from "../contract/control.js";
import { createClients, type Clients, type ClientsOptions } from "./create-clients.js";
import { Credentials } from "./credentials.js";
import { CredentialsError } from "./errors.js";
import type { RetryPolicy } from "./retry.js";
import { Transport, type Timeouts } from "./transport.js";

export interface ControlClientOptions {
  /** Origin of the services, e.g. `http://127.0.0.1:4566`. */
  readonly endpoint: string;
  /** The control interface's admin token (`converge serve --admin-token`, CONVERGE_ADMIN_TOKEN, or the one it printed). */
  readonly adminToken: string;
  /** The keep-alive pool to use; the client makes and owns one when absent. */
  readonly dispatcher?: Dispatcher;
  readonly timeouts?: Partial<Timeouts>;
  readonly retry?: Partial<RetryPolicy>;
}

/** Where a control operation acts: a world's ID, the server's own world when absent. */
export interface InWorld {
  readonly world?: string | undefined;
}

/** What a read of the journal narrows it to; every field given must match. */
export interface JournalFilter {
  readonly operation?: string;
  readonly account?: string;
  readonly status?: number;
  readonly world?: string;
  /** The identity's name (`identities[N]`, or its `name` in the world file). */
  readonly identity?: string;
  /** Only requests a fault shaped (`true`), or only the others (`false`). */
  readonly fault?: boolean;
  /** Only writes (`true`), or only reads (`false`). */
  readonly write?: boolean;
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

/**
 * The typed client of the services' control interface (`/_converge/`, docs/manual/testing.md): readiness,
 * reset, checkpoints, scripted faults, the request journal, the clock, and isolated worlds. Every
 * answer is checked against the contract (src/contract/control.ts); errors are the clients' typed
 * errors (`ApiError` with `service: "control"`), and the admin token never appears in one.
 */
export class ControlClient {
  readonly endpoint: string;
  readonly #transport: Transport;

  constructor(options: ControlClientOptions) {
    this.endpoint = new URL(options.endpoint).origin;
    this.#transport = new Transport({
      endpoint: this.endpoint,
      credentials: new Credentials(options.adminToken, "the admin token"),
      rateLimit: false,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200, ...options.retry },
    });
  }

  /** A client of the services at CONVERGE_ENDPOINT with the admin token of CONVERGE_ADMIN_TOKEN: what a CI job's tests attach with. */
  static fromEnvironment(env: Readonly<Record<string, string | undefined>> = process.env): ControlClient {
    const endpoint = env.CONVERGE_ENDPOINT;
    const adminToken = env.CONVERGE_ADMIN_TOKEN;
    if (!endpoint) throw new CredentialsError("CONVERGE_ENDPOINT is not set: expected the origin of the services, e.g. http://127.0.0.1:4566");
    if (!adminToken) throw new CredentialsError("CONVERGE_ADMIN_TOKEN is not set: expected the control interface's admin token (converge serve --admin-token FILE)");
    return new ControlClient({ endpoint, adminToken });
  }

  /** `GET /_converge/health`: ready once both services accept requests and the state is loaded. */
  health(): Promise<Health> {
    return this.#call("Health", "GET", "health", { response: Health, idempotent: true });
  }

  /** Asks for health until it answers ready (a service starting in the background), for at most `timeoutMs`. */
  async waitUntilReady(timeoutMs = 15_000): Promise<Health> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      try {
        const health = await this.health();
        if (health.status === "ready") return health;
      } catch (error) {
        if (performance.now() > deadline) throw error;
      }
      if (performance.now() > deadline) throw new Error(`the services at ${this.endpoint} were not ready within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** `POST /_converge/reset`: every world back to its seed (their rules and the journal cleared), or one world. */
  reset(options: InWorld = {}): Promise<ResetAnswer> {
    return this.#call("Reset", "POST", "reset", { body: worldOnly(options), response: ResetAnswer, idempotent: true });
  }

  /** `PUT /_converge/checkpoints/NAME`: saves a world's whole state (the server's when no world is given). */
  saveCheckpoint(name: string, options: InWorld = {}): Promise<CheckpointAnswer> {
    return this.#call("SaveCheckpoint", "PUT", `checkpoints/${encodeURIComponent(name)}`, { body: worldOnly(options), response: CheckpointAnswer, idempotent: true, expectStatus: 201 });
  }

  /** `POST /_converge/checkpoints/NAME/restore`: replaces a world's state with the checkpoint, atomically for its requests. */
  restoreCheckpoint(name: string, options: InWorld = {}): Promise<z.infer<typeof RestoreAnswer>> {
    return this.#call("RestoreCheckpoint", "POST", `checkpoints/${encodeURIComponent(name)}/restore`, { body: worldOnly(options), response: RestoreAnswer, idempotent: true });
  }

  /** `GET /_converge/checkpoints/NAME`: the checkpoint as a state file, which `converge serve --state-file` starts from. */
  downloadCheckpoint(name: string): Promise<string> {
    return this.#call("DownloadCheckpoint", "GET", `checkpoints/${encodeURIComponent(name)}`, { textAnswer: true, idempotent: true });
  }

  /** `PUT /_converge/checkpoints/NAME` with a state file: keeps it as a checkpoint once it is checked as a start would check it. */
  uploadCheckpoint(name: string, stateFile: string): Promise<CheckpointAnswer> {
    return this.#call("UploadCheckpoint", "PUT", `checkpoints/${encodeURIComponent(name)}`, { text: stateFile, response: CheckpointAnswer, idempotent: true, expectStatus: 201 });
  }

  /** `POST /_converge/faults`: adds a rule; its `id` removes it. */
  addFault(rule: FaultRuleRequest): Promise<FaultRule> {
    return this.#call("AddFault", "POST", "faults", { body: rule, response: FaultRule, idempotent: false, expectStatus: 201 });
  }

  /** `GET /_converge/faults`: every rule, with how often it matched and acted. */
  async faults(): Promise<FaultRule[]> {
    return (await this.#call("ListFaults", "GET", "faults", { response: FaultRules, idempotent: true })).faults;
  }

  /** `DELETE /_converge/faults/ID`. */
  removeFault(id: string): Promise<void> {
    return this.#call("RemoveFault", "DELETE", `faults/${encodeURIComponent(id)}`, { idempotent: true, expectStatus: 204 });
  }

  /** `DELETE /_converge/faults`: every rule (those of one world when given); answers how many were removed. */
  async removeFaults(options: InWorld = {}): Promise<number> {
    return (await this.#call("RemoveFaults", "DELETE", "faults", { query: worldOnly(options), response: RemovedAnswer, idempotent: true })).removed;
  }

  /** `GET /_converge/requests`: the journal's entries that match, oldest first. */
  async requests(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    return (await this.journal(filter)).requests;
  }

  /** `GET /_converge/requests`, whole: the entries, the ring's size and how many older entries it let go. */
  journal(filter: JournalFilter = {}): Promise<JournalAnswer> {
    return this.#call("ReadJournal", "GET", "requests", { query: journalQuery(filter), response: JournalAnswer, idempotent: true });
  }

  /** `DELETE /_converge/requests`: the journal's entries that match (all when no filter); answers how many. */
  async clearRequests(filter: JournalFilter = {}): Promise<number> {
    return (await this.#call("ClearJournal", "DELETE", "requests", { query: journalQuery(filter), response: RemovedAnswer, idempotent: true })).removed;
  }

  /** `POST /_converge/clock`: moves a world's clock forward, so that Region transitions settle without waiting. */
  advanceClock(ms: number, options: InWorld = {}): Promise<ClockAnswer> {
    return this.#call("AdvanceClock", "POST", "clock", { body: { advanceMs: ms, ...worldOnly(options) }, response: ClockAnswer, idempotent: false });
  }

  /** `POST /_converge/worlds`: an isolated world, a copy of the server's (no argument) or of the world file given. */
  async createWorld(world?: Readonly<Record<string, unknown>>, clientOptions: WorldClientsOptions = {}): Promise<TestWorld> {
    const grant = await this.#call("CreateWorld", "POST", "worlds", { body: world === undefined ? {} : { world }, response: WorldGrant, idempotent: false, expectStatus: 201 });
    return new TestWorld(this, grant, clientOptions);
  }

  /** `GET /_converge/worlds`: every world, the server's first. */
  async worlds(): Promise<WorldSummary[]> {
    return (await this.#call("ListWorlds", "GET", "worlds", { response: WorldList, idempotent: true })).worlds;
  }

  /** `DELETE /_converge/worlds/ID`: drops a world made at run time; its tokens stop working. */
  dropWorld(id: string): Promise<void> {
    return this.#call("DropWorld", "DELETE", `worlds/${encodeURIComponent(id)}`, { idempotent: true, expectStatus: 204 });
  }

  /** Closes the pool if this client made it. */
  close(): Promise<void> {
    return this.#transport.close();
  }

  #call<T>(operation: string, method: Method, path: string, spec: {
    readonly body?: unknown;
    readonly text?: string;
    readonly query?: Readonly<Record<string, string | undefined>>;
    readonly response?: z.ZodType<T>;
    readonly textAnswer?: boolean;
    readonly idempotent: boolean;
    readonly expectStatus?: number;
  }): Promise<T> {
    return this.#transport.call("control", {
      operation,
      method,
      path: `/_converge/${path}`,
      ...(spec.query !== undefined ? { query: spec.query } : {}),
      ...(spec.body !== undefined ? { body: spec.body } : {}),
      ...(spec.text !== undefined ? { text: spec.text } : {}),
      ...(spec.response !== undefined ? { response: spec.response } : {}),
      ...(spec.textAnswer ? { textAnswer: true } : {}),
      idempotent: spec.idempotent,
      expectStatus: spec.expectStatus ?? 200,
    });
  }
}

/** What the clients a world makes take besides their endpoint and token. */
export type WorldClientsOptions = Partial<Omit<ClientsOptions, "endpoint" | "credentials">>;

/**
 * An isolated world taken from the control interface (a vitest or jest worker takes one in
 * `beforeAll`): its ID, its identities' tokens (each good for this world only), clients of it, and the
 * control operations scoped to it. `drop()` closes the clients it made and drops the world.
 */
export class TestWorld {
  readonly id: string;
  readonly tokens: WorldGrant["tokens"];
  readonly endpoint: string;
  readonly #control: ControlClient;
  readonly #clientOptions: WorldClientsOptions;
  readonly #made: Clients[] = [];

  constructor(control: ControlClient, grant: WorldGrant, clientOptions: WorldClientsOptions = {}) {
    this.#control = control;
    this.id = grant.id;
    this.tokens = grant.tokens;
    this.endpoint = control.endpoint;
    this.#clientOptions = clientOptions;
  }

  /** The token of an identity, by name (`identities[0]`, or its `name` in the world file); the first identity's when none is named. */
  token(identity?: string): string {
    const found = identity === undefined ? this.tokens[0] : this.tokens.find((each) => each.identity === identity);
    if (!found) {
      throw new CredentialsError(`world ${this.id} has no identity ${JSON.stringify(identity ?? "identities[0]")}: its identities are ${this.tokens.map((each) => each.identity).join(", ") || "none"}`);
    }
    return found.token;
  }

  /** Both clients of this world as `identity` (the first identity by default); closed by `drop()`. */
  clients(identity?: string, options: WorldClientsOptions = {}): Clients {
    const clients = createClients({ ...this.#clientOptions, ...options, endpoint: this.endpoint, credentials: new Credentials(this.token(identity), `world ${this.id}`) });
    this.#made.push(clients);
    return clients;
  }

  /** A fault rule for this world only. */
  addFault(rule: Omit<FaultRuleRequest, "world">): Promise<FaultRule> {
    return this.#control.addFault({ ...rule, world: this.id });
  }

  /** This world's requests in the journal. */
  requests(filter: Omit<JournalFilter, "world"> = {}): Promise<JournalEntry[]> {
    return this.#control.requests({ ...filter, world: this.id });
  }

  clearRequests(filter: Omit<JournalFilter, "world"> = {}): Promise<number> {
    return this.#control.clearRequests({ ...filter, world: this.id });
  }

  /** Back to the world's seed: state, clock, throttle, its rules and its journal. */
  async reset(): Promise<void> {
    await this.#control.reset({ world: this.id });
  }

  advanceClock(ms: number): Promise<ClockAnswer> {
    return this.#control.advanceClock(ms, { world: this.id });
  }

  saveCheckpoint(name: string): Promise<CheckpointAnswer> {
    return this.#control.saveCheckpoint(name, { world: this.id });
  }

  async restoreCheckpoint(name: string): Promise<void> {
    await this.#control.restoreCheckpoint(name, { world: this.id });
  }

  /** Closes the clients made here and drops the world. */
  async drop(): Promise<void> {
    await Promise.all(this.#made.splice(0).map((clients) => clients.close()));
    await this.#control.dropWorld(this.id);
  }
}

function worldOnly(options: InWorld): { world?: string } {
  return options.world === undefined ? {} : { world: options.world };
}

/** A journal filter as the query string carries it. */
function journalQuery(filter: JournalFilter): Record<string, string | undefined> {
  return {
    operation: filter.operation,
    account: filter.account,
    status: filter.status === undefined ? undefined : String(filter.status),
    world: filter.world,
    identity: filter.identity,
    fault: filter.fault === undefined ? undefined : String(filter.fault),
    write: filter.write === undefined ? undefined : String(filter.write),
  };
}
