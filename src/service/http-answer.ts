import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { ErrorDialect, ServiceError } from "./service-error.js";

/** The `x-svc-request-id` of each answer: the process's boot ID and a counter. */
export class RequestIds {
  readonly #bootId = randomBytes(4).toString("hex");
  #counter = 0;

  next(): string {
    return `${this.#bootId}-${(this.#counter += 1)}`;
  }
}

/** Answers `status` with a JSON text (or an empty body when `text` is undefined). */
export function sendJson(response: ServerResponse, status: number, text: string | undefined, requestId: string): void {
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

/** Answers an error in a service's dialect: its status, `x-svc-ErrorType`, headers and body; cuts the connection when an answer has begun. */
export function sendError(response: ServerResponse, dialect: ErrorDialect, error: ServiceError, requestId: string): void {
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

/** An error no handler meant: written to stderr, answered as the dialect's 500. */
export function unexpectedError(error: unknown, dialect: ErrorDialect): ServiceError {
  process.stderr.write(`converge service: unexpected error: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  return dialect.internal("the service failed unexpectedly; retry later");
}
