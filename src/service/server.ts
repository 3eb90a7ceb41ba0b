import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { randomBytes } from "node:crypto";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import FindMyWay from "find-my-way";
import { z } from "zod";
import { ACCOUNT_OPERATIONS, ACCOUNT_VERSION_DATE, type AccountOperationName } from "../contract/account.js";
import { AccountService } from "./account/account-service.js";
import { GatewayService } from "./gateway/gateway-service.js";
import { FaultInjector } from "./faults.js";
import { IdentityRegistry } from "./identity.js";
import type { Operation, OperationCall, OperationReply } from "./operation.js";
import { PageTokens } from "./page-token.js";
import { readJsonBody } from "./request-body.js";
import { RequestLog } from "./request-log.js";
import { DIALECTS, ServiceError, accountErrors, type ErrorDialect } from "./service-error.js";
import { MapCollection } from "./map-collection.js";
import { Store, StateWriteError } from "./store.js";
import { NODE_STATE_FILE_SYSTEM, faultyStateFileSystem } from "./state-file-system.js";
import { Throttle } from "./throttle.js";
import { DEMO_WORLD, loadWorldFile, parseWorld, type World, type WorldInput } from "./world.js";

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
}

/** A started service: both APIs on one origin. */
export interface RunningService {
  /** `http://host:port`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly world: World;
  /** Whether the demo world was booted (no world given). */
  readonly demo: boolean;
  readonly requests: RequestLog;
  /** Stops accepting, closes connections, and flushes the state file. */
  close(): Promise<void>;
}

type Resolver = (request: IncomingMessage) => Operation;

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How often a handler runs again when state it read was undone by a failed write, before answering 500. */
const MAX_RUNS = 3;
/** How long a connection answered 408 may stay open for the client to read the answer and close it. */
const TIMED_OUT_LINGER_MS = 1000;

/** Starts the embedded account and gateway services on one HTTP origin. */
export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const demo = options.world === undefined && options.worldFile === undefined;
  const world = options.world !== undefined
    ? parseWorld(options.world)
    : options.worldFile !== undefined ? await loadWorldFile(options.worldFile) : parseWorld(DEMO_WORLD, "(demo world)");
  const { store, operations } = await openState(world, options.stateFile);

  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const pipeline = new Pipeline(world, operations, new RequestLog(options.recordRequests ?? false), store, requestTimeoutMs);
  const server = httpServer(pipeline, requestTimeoutMs);
  await listen(server, options.host ?? "127.0.0.1", options.port ?? 4566);
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    world,
    demo,
    requests: pipeline.requests,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 250).unref();
        });
        await store.close();
      })();
      return closing;
    },
  };
}

/**
 * The services' state for a world: the store with its paging key, both services' collections, the
 * world's APIs seeded, and with a state file the store attached to it (what it holds replaces the
 * seeded state); the operations of both services over it.
 */
async function openState(world: World, stateFile: string | undefined): Promise<{ store: Store; operations: Operation[] }> {
  const store = new Store();
  const meta = new MapCollection<string>(z.string());
  store.register("meta", meta);
  meta.map.set("pagingKey", randomBytes(32).toString("base64"));
  const tokens = new PageTokens(() => Buffer.from(meta.map.get("pagingKey")!, "base64"));
  const account = new AccountService(world, store, tokens);
  const gateway = new GatewayService(store, tokens);
  await gateway.seed(world);
  if (stateFile) {
    const faults = world.faults.stateFile;
    await store.attach(stateFile, {
      fileSystem: faults ? faultyStateFileSystem(NODE_STATE_FILE_SYSTEM, faults) : NODE_STATE_FILE_SYSTEM,
      notice: (message) => process.stderr.write(`converge service: ${message}\n`),
    });
  }
  return { store, operations: [...account.operations(), ...gateway.operations()] };
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
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => pipeline.clientError(error, socket));
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

/**
 * The request pipeline both services share: route, inject faults, authenticate, authorize,
 * throttle, read the body, run the operation, answer in the operation's error dialect.
 */
class Pipeline {
  readonly requests: RequestLog;
  readonly #router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 1000 });
  readonly #identities: IdentityRegistry;
  readonly #throttle: Throttle;
  readonly #faults: FaultInjector;
  readonly #store: Store;
  readonly #requestTimeoutMs: number;
  readonly #bootId = randomBytes(4).toString("hex");
  /** The request each connection is handling (its headers arrived), for the dialect of a 408. */
  readonly #handling = new WeakMap<Socket, { readonly request: IncomingMessage; readonly response: ServerResponse }>();
  /** Connections answered 408: their request is logged as such, not as a client that hung up. */
  readonly #timedOut = new WeakSet<Socket>();
  #requestCounter = 0;

  constructor(world: World, operations: ReadonlyArray<Operation>, requests: RequestLog, store: Store, requestTimeoutMs: number) {
    this.requests = requests;
    this.#store = store;
    this.#requestTimeoutMs = requestTimeoutMs;
    this.#identities = new IdentityRegistry(world.identities);
    this.#throttle = new Throttle(world.throttle);
    this.#faults = new FaultInjector(world.faults);
    for (const operation of operations) {
      const resolve: Resolver = () => operation;
      this.#router.on(operation.method, operation.path, () => undefined, resolve);
    }
    const byName = new Map(operations.filter((op) => op.service === "account").map((op) => [op.name, op]));
    const formB: Resolver = (request) => resolveFormB(request, byName);
    this.#router.on("POST", "/", () => undefined, formB);
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? "/";
    const queryStart = url.indexOf("?");
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    let dialect = dialectOfPath(path);
    let operation: Operation | undefined;
    let body: unknown;
    const requestId = `${this.#bootId}-${(this.#requestCounter += 1)}`;
    this.#handling.set(request.socket, { request, response });
    try {
      operation = this.#route(request, path, dialect);
      dialect = DIALECTS[operation.service];
      if (this.#faults.failBeforeRequest()) throw dialect.internal("injected fault: the service failed before handling the request; retry later");
      if (this.#faults.config.latencyMs > 0) await sleep(this.#faults.config.latencyMs);
      const identity = this.#identities.authenticate(request.headers.authorization, dialect);
      this.#identities.authorize(identity, operation.service, operation.name, dialect);
      const wait = this.#throttle.take(identity.key, operation.name);
      if (wait > 0) throw dialect.throttled(`rate exceeded for ${operation.name}: slow down and retry after ${Math.ceil(wait)} ms`, wait);
      if (operation.method === "POST" || operation.method === "PATCH") {
        const read = await readJsonBody(request);
        if (!read.ok) {
          if (read.clientGone) {
            // received but not applied, and nobody to answer: logged as 499 (client closed request),
            // or 408 when the service closed the connection because the body was too slow
            const timedOut = this.#timedOut.has(request.socket);
            response.destroy();
            this.#log(operation, request, path, timedOut ? 408 : 499, undefined);
            return;
          }
          if (read.closeConnection) response.setHeader("connection", "close");
          throw dialect.invalid(read.problem, [{ name: "(body)", message: read.problem }]);
        }
        body = read.value;
      }
      const query = queryStart === -1 ? {} : Object.fromEntries(new URLSearchParams(url.slice(queryStart + 1)));
      const params = this.#router.find(operation.method, path)?.params ?? {};
      const reply = await this.#run(operation, { identity, body, params, query }, dialect);
      if (operation.write && this.#faults.dropAfterWrite()) {
        throw dialect.internal("injected fault: the service failed after applying the write; read before you retry a create");
      }
      this.#send(response, reply.status, reply.json ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body)), requestId);
      this.#log(operation, request, path, reply.status, body);
    } catch (error) {
      const failure = error instanceof ServiceError ? error : this.#unexpected(error, dialect);
      this.#sendError(response, dialect, failure, requestId);
      this.#log(operation, request, path, failure.status, body);
    } finally {
      this.#handling.delete(request.socket);
    }
  }

  /**
   * Runs an operation so that its answer depends only on durable state. A handler reads state
   * synchronously before its first await (its commit, if any, is that await), so the store's mark
   * taken right after the call covers all it read. When that state is not durable yet, the answer
   * waits for the sync; if the sync fails and the state is undone, the handler runs again (a handler
   * whose own commit failed is answered 500: nothing of it was kept, and the client may retry).
   */
  async #run(operation: Operation, call: OperationCall, dialect: ErrorDialect): Promise<OperationReply> {
    for (let run = 1; ; run += 1) {
      if (this.#store.failure) throw dialect.internal(this.#store.failure.message);
      let pending: OperationReply | Promise<OperationReply> | undefined;
      let failure: { readonly error: unknown } | undefined;
      try {
        pending = operation.handle(call);
      } catch (error) {
        failure = { error };
      }
      const mark = this.#store.mark();
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
      const durable = this.#store.whenDurable(mark);
      if (durable === undefined || (await durable)) {
        if (failure) throw failure.error;
        return reply!;
      }
      if (run === MAX_RUNS) throw dialect.internal("the state this answer read was undone by a failed write to the state file; retry later");
    }
  }

  /**
   * Errors Node reports before a request reaches the handler. A request whose headers or body did
   * not arrive within the bound is answered 408 in the service's error shape (Node's own 408 has no
   * body) and its connection closed; the others get Node's default answers.
   */
  clientError(error: NodeJS.ErrnoException, socket: Socket): void {
    const handling = this.#handling.get(socket);
    // as Node does: answer only where no answer has begun on this connection
    if (!socket.writable || handling?.response.headersSent) {
      socket.destroy();
      return;
    }
    if (error.code !== "ERR_HTTP_REQUEST_TIMEOUT") {
      const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW" ? 413 : 400;
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
      socket.destroy();
      return;
    }
    const dialect = dialectOfPath(handling?.request.url?.split("?", 1)[0] ?? "/");
    const what = handling ? "the request body" : "the request headers";
    const timeout = new ServiceError(408, "RequestTimeoutException",
      `${what} did not arrive within ${this.#requestTimeoutMs} ms (the service's request timeout): `
        + `the connection is closed; send the whole request at once and retry`);
    const text = JSON.stringify(dialect.body(timeout));
    this.#timedOut.add(socket);
    socket.end([
      `HTTP/1.1 408 ${STATUS_CODES[408]}`,
      "Connection: close",
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(text)}`,
      `x-svc-ErrorType: ${timeout.errorType}`,
      `x-svc-request-id: ${this.#bootId}-${(this.#requestCounter += 1)}`,
      "",
      text,
    ].join("\r\n"));
    // a client that does not close its side is cut off after a moment to read the answer
    setTimeout(() => socket.destroy(), TIMED_OUT_LINGER_MS).unref();
  }

  #route(request: IncomingMessage, path: string, dialect: ErrorDialect): Operation {
    const method = request.method ?? "GET";
    const found = this.#find(method, path);
    if (found) return (found.store as Resolver)(request);
    if (dialect === DIALECTS.apigateway) {
      throw new ServiceError(404, "NotFoundException", `no operation answers ${method} ${path}`);
    }
    throw accountErrors.validation(`no operation answers ${method} ${path}`, [
      { name: "(path)", message: `${method} ${path} is not an operation: use POST /<operation> (e.g. POST /listRegions) or POST / with X-Svc-Target` },
    ]);
  }

  /** The route of a method and path; none for a method the router does not know (it throws then). */
  #find(method: string, path: string) {
    try {
      return this.#router.find(method as "GET", path);
    } catch {
      return null;
    }
  }

  #send(response: ServerResponse, status: number, text: string | undefined, requestId: string): void {
    if (text === undefined) {
      response.writeHead(status, { "content-length": 0, "x-svc-request-id": requestId });
      response.end();
      return;
    }
    response.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "x-svc-request-id": requestId,
    });
    response.end(text);
  }

  #sendError(response: ServerResponse, dialect: ErrorDialect, error: ServiceError, requestId: string): void {
    const text = JSON.stringify(dialect.body(error));
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response.writeHead(error.status, {
      ...error.headers,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      "x-svc-ErrorType": error.errorType,
      "x-svc-request-id": requestId,
    });
    response.end(text);
  }

  #unexpected(error: unknown, dialect: ErrorDialect): ServiceError {
    process.stderr.write(`converge service: unexpected error: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    return dialect.internal("the service failed unexpectedly; retry later");
  }

  #log(operation: Operation | undefined, request: IncomingMessage, path: string, status: number, body: unknown): void {
    this.requests.add({
      service: operation?.service ?? "unknown",
      operation: operation?.name ?? "unknown",
      method: request.method ?? "",
      path,
      status,
      write: operation?.write ?? false,
      ...(this.requests.recordBodies && body !== undefined ? { body } : {}),
    });
  }
}

/** The dialect of errors before the operation is known: the gateway's under `/v2`, else the account's. */
function dialectOfPath(path: string): ErrorDialect {
  return path === "/v2" || path.startsWith("/v2/") ? DIALECTS.apigateway : DIALECTS.account;
}

/** Form B: `POST /` with `X-Svc-Target: <prefix containing 20210201>.<Operation>`. */
function resolveFormB(request: IncomingMessage, byName: ReadonlyMap<string, Operation>): Operation {
  const header = request.headers["x-svc-target"];
  const target = Array.isArray(header) ? header[0] : header;
  const invalid = (message: string) => accountErrors.validation(message, [{ name: "X-Svc-Target", message }]);
  if (!target) throw invalid('X-Svc-Target header is missing: expected "<prefix>.<Operation>", e.g. "AccountService_20210201.ListRegions"');
  const dot = target.lastIndexOf(".");
  const prefix = dot === -1 ? "" : target.slice(0, dot);
  const name = dot === -1 ? target : target.slice(dot + 1);
  if (!prefix.includes(ACCOUNT_VERSION_DATE)) {
    throw invalid(`X-Svc-Target ${JSON.stringify(target)} is not valid: expected a prefix containing ${ACCOUNT_VERSION_DATE}, `
      + `e.g. "AccountService_20210201.${name || "ListRegions"}"`);
  }
  const operation = byName.get(name);
  if (!operation) {
    const known = (Object.keys(ACCOUNT_OPERATIONS) as AccountOperationName[]).join(", ");
    throw invalid(`X-Svc-Target ${JSON.stringify(target)} names unknown operation ${JSON.stringify(name)}: expected one of ${known}`);
  }
  return operation;
}
