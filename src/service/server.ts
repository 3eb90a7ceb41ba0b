import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { SERVER_WORLD_ID, type JournalFault } from "../contract/control.js";
import { packageVersion } from "../contract/package-version.js";
import { adminAccess } from "./control/admin-access.js";
import { Checkpoints } from "./control/checkpoints.js";
import { ControlInterface, isControlPath } from "./control/control-interface.js";
import { FaultRules, type FaultTarget } from "./faults.js";
import { RequestIds, sendError, sendJson, unexpectedError } from "./http-answer.js";
import { UNKNOWN_TOKEN } from "./identity.js";
import { LiveWorld } from "./live-world.js";
import type { Operation, OperationReply } from "./operation.js";
import { OperationRouter, dialectOfPath } from "./operation-router.js";
import { readJsonBody } from "./request-body.js";
import { DEFAULT_JOURNAL_SIZE, RequestJournal } from "./request-journal.js";
import { RequestLog } from "./request-log.js";
import { DIALECTS, ServiceError, type ErrorDialect } from "./service-error.js";
import { SlowRequests } from "./slow-requests.js";
import { DEMO_WORLD, WorldFileError, loadWorldFile, parseWorld, type World, type WorldInput } from "./world.js";
import { Worlds, type Caller } from "./worlds.js";

export interface ServiceOptions {
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** 0 picks a free port. @default 4566 */
  readonly port?: number;
  /** The world to boot; `worldFile` is read when this is absent. @default the demo world */
  readonly world?: WorldInput;
  readonly worldFile?: string;
  /** Makes state durable: writes are answered only once they are on disk. @default in memory */
  readonly stateFile?: string;
  /**
   * A request whose headers, or whole body, have not arrived this long after it began is answered
   * 408 and its connection closed. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** Keep every request with its body in `requests` (tests). @default false */
  readonly recordRequests?: boolean;
  /**
   * The control interface's admin token (docs/manual/testing.md). Without one, on a loopback address
   * the service makes one (`RunningService.adminToken`); on any other address the control interface
   * is off. @default made on a loopback address, else none
   */
  readonly adminToken?: string;
  /** How many requests the control interface's journal holds (a ring); 0 turns it off. @default 10000 */
  readonly journalSize?: number;
  /** The version the health check answers. @default converge's package version */
  readonly version?: string;
}

/** A started service: both APIs and the control interface on one origin. */
export interface RunningService {
  /** `http://host:port`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly world: World;
  /** Whether the demo world was booted (no world given). */
  readonly demo: boolean;
  readonly requests: RequestLog;
  /** The control interface's admin token (given, or made on a loopback address); `undefined` when the control interface is off. */
  readonly adminToken: string | undefined;
  /** Stops accepting, closes connections, and flushes the state file. */
  close(): Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The most requests the journal may hold. */
export const MAX_JOURNAL_SIZE = 1_000_000;

/** Starts the embedded account and gateway services, and their control interface, on one HTTP origin. */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const demo = options.world === undefined && options.worldFile === undefined;
  const world = options.world !== undefined
    ? parseWorld(options.world)
    : options.worldFile !== undefined ? await loadWorldFile(options.worldFile) : parseWorld(DEMO_WORLD, "(demo world)");
  const journalSize = options.journalSize ?? DEFAULT_JOURNAL_SIZE;
  if (!Number.isInteger(journalSize) || journalSize < 0 || journalSize > MAX_JOURNAL_SIZE) {
    throw new RangeError(`journalSize ${JSON.stringify(journalSize)} is not valid: expected an integer from 0 (no journal) to ${MAX_JOURNAL_SIZE}`);
  }
  const host = options.host ?? "127.0.0.1";
  const access = adminAccess(host, options.adminToken);
  const clash = world.identities.findIndex((identity) => identity.token === access.token);
  if (clash !== -1) {
    throw new WorldFileError(options.worldFile ?? "(inline)", [`identities[${clash}].token is the control interface's admin token: the admin token must belong to no identity of any world`]);
  }
  const worlds = new Worlds(await LiveWorld.open(SERVER_WORLD_ID, world, options.stateFile));
  const faults = new FaultRules();
  faults.setWorldFile(SERVER_WORLD_ID, world.faults);
  const journal = new RequestJournal(journalSize);
  const ids = new RequestIds();
  let stopping = false;
  const control = new ControlInterface(
    { worlds, faults, journal, checkpoints: new Checkpoints(), access, version: options.version ?? packageVersion(), stopping: () => stopping },
    ids,
  );
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const pipeline = new Pipeline({ worlds, faults, journal, control, ids, requests: new RequestLog(options.recordRequests ?? false), slow: new SlowRequests(requestTimeoutMs, ids) });
  const server = httpServer(pipeline, requestTimeoutMs);
  await listen(server, host, options.port ?? 4566);
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    world,
    demo,
    requests: pipeline.requests,
    adminToken: access.token,
    close() {
      stopping = true;
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 250).unref();
        });
        await Promise.all(worlds.all().map((live) => live.close()));
      })();
      return closing;
    },
  };
}

/** The HTTP server the pipeline answers on, its timeouts bounding how long a request may take to arrive. */
function httpServer(pipeline: Pipeline, requestTimeoutMs: number): Server {
  const server = createServer({
    keepAliveTimeout: 65_000,
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    // how often Node looks for requests past their time (its default, 30 s, would double a 30 s bound)
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(requestTimeoutMs / 10))),
  }, (request, response) => void pipeline.handle(request, response));
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => pipeline.slow.clientError(error, socket));
  return server;
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** What the pipeline dispatches through: the worlds, their fault rules, the logs, the control interface. */
interface PipelineParts {
  readonly worlds: Worlds;
  readonly faults: FaultRules;
  readonly journal: RequestJournal;
  readonly requests: RequestLog;
  readonly control: ControlInterface;
  readonly ids: RequestIds;
  readonly slow: SlowRequests;
}

/** One request's facts as they become known: what the logs record. */
interface Trace {
  readonly time: number;
  readonly started: number;
  readonly caller: Caller;
  dialect: ErrorDialect;
  operation: Operation | undefined;
  fault: JournalFault | undefined;
  body: unknown;
  /** The world's gate was passed: it is left once the request is answered and logged. */
  entered: boolean;
}

/** The answer of a request that ran: its reply, and whether a rule drops it. */
type Served = { readonly reply: OperationReply; readonly dropAnswer: boolean } | "client gone";

/**
 * The request pipeline both services share: the control interface's requests go their own way; a
 * service's request is routed, its world found by its token (and the world's gate passed), fault
 * rules applied, authenticated, authorized, throttled, its body read, its operation run in its world,
 * and answered in the operation's error dialect; the journal and the request log record it.
 */
class Pipeline {
  readonly requests: RequestLog;
  readonly slow: SlowRequests;
  readonly #parts: PipelineParts;
  readonly #router: OperationRouter;

  constructor(parts: PipelineParts) {
    this.#parts = parts;
    this.requests = parts.requests;
    this.slow = parts.slow;
    this.#router = new OperationRouter(parts.worlds.server.operations());
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? "/";
    const queryStart = url.indexOf("?");
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const query = queryStart === -1 ? undefined : url.slice(queryStart + 1);
    if (isControlPath(path)) return this.#parts.control.handle(request, response, path, query);
    const trace: Trace = {
      time: Date.now(), started: performance.now(), caller: this.#parts.worlds.caller(request.headers.authorization),
      dialect: dialectOfPath(path), operation: undefined, fault: undefined, body: undefined, entered: false,
    };
    const requestId = this.#parts.ids.next();
    this.slow.begin(request, response);
    try {
      const served = await this.#serve(request, response, trace, path, query);
      if (served === "client gone") return;
      if (served.dropAnswer) response.destroy();
      else sendJson(response, served.reply.status, served.reply.json ?? (served.reply.body === undefined ? undefined : JSON.stringify(served.reply.body)), requestId);
      this.#log(trace, request, path, served.reply.status);
    } catch (error) {
      const failure = error instanceof ServiceError ? error : unexpectedError(error, trace.dialect);
      // a rule that drops the answer drops an error's too
      if (trace.fault?.effect === "dropAnswer") response.destroy();
      else sendError(response, trace.dialect, failure, requestId);
      this.#log(trace, request, path, failure.status);
    } finally {
      this.slow.end(request);
      if (trace.entered) trace.caller.world.gate.leave();
    }
  }

  /** Routes and runs a request in its world; throws the error to answer. */
  async #serve(request: IncomingMessage, response: ServerResponse, trace: Trace, path: string, query: string | undefined): Promise<Served> {
    const { operation, params } = this.#router.route(request, path, trace.dialect);
    const { world } = trace.caller;
    const dialect = DIALECTS[operation.service];
    trace.operation = operation;
    trace.dialect = dialect;
    const waiting = world.gate.enter();
    trace.entered = true;
    if (waiting) await waiting;
    if (world.dropped) throw dialect.accessDenied(UNKNOWN_TOKEN);
    const target = faultTarget(trace, operation);
    const decision = this.#parts.faults.before(target);
    trace.fault = decision?.fault;
    if (decision !== undefined && decision.latencyMs > 0) await sleep(decision.latencyMs);
    if (decision?.error) throw decision.error.error(dialect, operation.name);
    const identity = trace.caller.identity;
    if (identity === undefined) throw dialect.accessDenied(trace.caller.denied);
    world.identities.authorize(identity, operation.service, operation.name, dialect);
    const wait = world.throttle.take(identity.key, operation.name);
    if (wait > 0) throw dialect.throttled(`rate exceeded for ${operation.name}: slow down and retry after ${Math.ceil(wait)} ms`, wait);
    if ((operation.method === "POST" || operation.method === "PATCH") && !(await this.#readBody(request, response, trace, path))) return "client gone";
    const call = { identity, body: trace.body, params, query: query === undefined ? {} : Object.fromEntries(new URLSearchParams(query)) };
    const reply = await world.run(world.operation(operation.name), call, dialect);
    const afterWrite = operation.write ? this.#parts.faults.afterWrite(target) : undefined;
    if (afterWrite) {
      trace.fault = { rule: afterWrite.id, effect: "errorAfterWrite" };
      throw afterWrite.error(dialect, operation.name);
    }
    return { reply, dropAnswer: decision?.dropAnswer ?? false };
  }

  /** Reads a write's JSON body into the trace; false when its client went away before sending it all (then logged here, never answered). */
  async #readBody(request: IncomingMessage, response: ServerResponse, trace: Trace, path: string): Promise<boolean> {
    const read = await readJsonBody(request);
    if (read.ok) {
      trace.body = read.value;
      return true;
    }
    if (read.clientGone) {
      // received but not applied, and nobody to answer: logged as 499 (client closed request),
      // or 408 when the service closed the connection because the body was too slow
      response.destroy();
      this.#log(trace, request, path, this.slow.timedOut(request) ? 408 : 499);
      return false;
    }
    if (read.closeConnection) response.setHeader("connection", "close");
    throw trace.dialect.invalid(read.problem, [{ name: "(body)", message: read.problem }]);
  }

  #log(trace: Trace, request: IncomingMessage, path: string, status: number): void {
    const { operation } = trace;
    this.requests.add({
      service: operation?.service ?? "unknown",
      operation: operation?.name ?? "unknown",
      method: request.method ?? "",
      path,
      status,
      write: operation?.write ?? false,
      ...(this.requests.recordBodies && trace.body !== undefined ? { body: trace.body } : {}),
    });
    if (this.#parts.journal.size === 0) return;
    const caller = trace.caller.identity;
    this.#parts.journal.add({
      time: trace.time,
      world: trace.caller.world.id,
      service: operation?.service ?? "unknown",
      operation: operation?.name ?? "unknown",
      write: operation?.write ?? false,
      identity: caller?.label,
      account: caller?.accountId,
      status,
      latencyMs: Math.round((performance.now() - trace.started) * 100) / 100,
      fault: trace.fault,
    });
  }
}

/** A request as fault rules see it: its world, operation, and the identity its token names (before that is checked). */
function faultTarget(trace: Trace, operation: Operation): FaultTarget {
  const identity = trace.caller.identity;
  return { world: trace.caller.world.id, operation: operation.name, write: operation.write, identity: identity?.label, account: identity?.accountId };
}
