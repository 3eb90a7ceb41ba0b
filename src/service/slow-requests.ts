import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { RequestIds } from "./http-answer.js";
import { dialectOfPath } from "./operation-router.js";
import { ServiceError } from "./service-error.js";

/** How long a connection answered 408 may stay open for the client to read the answer and close it. */
const TIMED_OUT_LINGER_MS = 1000;

/**
 * Requests that take too long to arrive: Node reports them (and other malformed requests) before
 * they reach the pipeline. A request whose headers or body did not arrive within the bound is
 * answered 408 in the service's error shape (Node's own 408 has no body) and its connection closed;
 * the others get Node's default answers.
 */
export class SlowRequests {
  readonly #requestTimeoutMs: number;
  readonly #ids: RequestIds;
  /** The request each connection is handling (its headers arrived), for the dialect of a 408. */
  readonly #handling = new WeakMap<Socket, { readonly request: IncomingMessage; readonly response: ServerResponse }>();
  /** Connections answered 408: their request is logged as such, not as a client that hung up. */
  readonly #timedOut = new WeakSet<Socket>();

  constructor(requestTimeoutMs: number, ids: RequestIds) {
    this.#requestTimeoutMs = requestTimeoutMs;
    this.#ids = ids;
  }

  begin(request: IncomingMessage, response: ServerResponse): void {
    this.#handling.set(request.socket, { request, response });
  }

  end(request: IncomingMessage): void {
    this.#handling.delete(request.socket);
  }

  /** Whether the service closed this request's connection because it was too slow. */
  timedOut(request: IncomingMessage): boolean {
    return this.#timedOut.has(request.socket);
  }

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
      `x-svc-request-id: ${this.#ids.next()}`,
      "",
      text,
    ].join("\r\n"));
    // a client that does not close its side is cut off after a moment to read the answer
    setTimeout(() => socket.destroy(), TIMED_OUT_LINGER_MS).unref();
  }
}
