import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import type { Dispatcher, Pool } from "undici";
import type { WorldInput } from "../../src/service/index.js";
import { testWorld } from "../support/worlds.js";

/** The HTTP API every gateway test world seeds (quick create: one managed route and integration). */
export const SEEDED_API_ID = "seedapi001";

/** {@link testWorld} plus `overrides` and one seeded HTTP API: the world of the clients' tests. */
export function seededWorld(overrides: Partial<WorldInput> = {}): WorldInput {
  return testWorld({
    apis: [{ apiId: SEEDED_API_ID, name: "seeded", protocolType: "HTTP", target: "https://backend.example/seeded" }],
    ...overrides,
  });
}

/** A TCP port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

/** A foreign HTTP server (not ours) that answers with `handler`; counts and keeps what it received. */
export interface ForeignServer {
  readonly url: string;
  readonly received: Array<{ method: string; path: string; headers: IncomingMessage["headers"] }>;
  close(): Promise<void>;
}

export async function startForeignServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<ForeignServer> {
  const received: ForeignServer["received"] = [];
  const server = createServer((request, response) => {
    received.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers });
    request.resume();
    request.on("end", () => handler(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

/** Sends `status` with a JSON `body` (or a raw string) and the given headers. */
export function answer(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { ...(text ? { "content-type": "application/json" } : {}), "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** One exchange as seen on the wire by {@link watchPool}. */
export interface WireExchange {
  readonly method: string;
  readonly path: string;
  /** `performance.now()` when the request was handed to the pool. */
  readonly sentAt: number;
  /** The `X-Svc-Target` header sent (account form B), if any. */
  readonly target: string | undefined;
  /** `performance.now()` when the response headers arrived (undefined when the request failed). */
  receivedAt?: number;
  status?: number;
  /** `x-svc-retry-after-ms` and `Retry-After` of the response, as sent. */
  retryAfterMs?: string | undefined;
  retryAfter?: string | undefined;
  errorCode?: string | undefined;
  /** `performance.now()` when the request failed without an answer. */
  failedAt?: number;
}

/**
 * Records every request the transport hands to a real undici pool, with timestamps and the retry
 * headers of each answer. It observes the wire and changes nothing.
 */
export function watchPool(pool: Pool): WireExchange[] {
  const exchanges: WireExchange[] = [];
  const dispatch = pool.dispatch.bind(pool);
  const watched = (options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean => {
    if (!handler.onRequestStart) throw new Error("watchPool observes undici's handler API (onRequestStart …), which the transport uses");
    const headers = (options.headers ?? {}) as Record<string, string | undefined>;
    const exchange: WireExchange = { method: options.method, path: options.path, sentAt: performance.now(), target: headers["x-svc-target"] };
    exchanges.push(exchange);
    return dispatch(options, {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onResponseStart(controller, statusCode, responseHeaders, statusMessage) {
        exchange.receivedAt = performance.now();
        exchange.status = statusCode;
        exchange.retryAfterMs = single(responseHeaders["x-svc-retry-after-ms"]);
        exchange.retryAfter = single(responseHeaders["retry-after"]);
        handler.onResponseStart?.(controller, statusCode, responseHeaders, statusMessage);
      },
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError(controller, error) {
        exchange.errorCode = (error as { code?: string }).code;
        exchange.failedAt = performance.now();
        handler.onResponseError?.(controller, error);
      },
    });
  };
  (pool as unknown as { dispatch: typeof watched }).dispatch = watched;
  return exchanges;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The rejection of `promise`; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    return error;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
}
