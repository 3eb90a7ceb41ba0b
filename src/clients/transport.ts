import { createRequire } from "node:module";
import type { Dispatcher, Pool as UndiciPool } from "undici";
import type { z } from "zod";
import { describeZodIssues } from "../contract/field-issues.js";
import type { Credentials } from "./credentials.js";
import {
  AbortedError,
  ApiError,
  ContractViolationError,
  TransportError,
  isConvergeError,
  type ConvergeError,
  type ServiceName,
} from "./errors.js";
import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_REQUEST_DEADLINE_MS } from "./answer-limits.js";
import { exchange, isExchangeLimitError, type Answer, type ExchangeLimits } from "./exchange.js";
import { AdaptiveRateLimiter, rateLimitLayer, type RateLimiterOptions } from "./rate-limiter.js";
import { DEFAULT_RETRY_POLICY, retryLayer, type RetryPolicy } from "./retry.js";
import { composeLayers, type Send, type WireRequest, type WireResponse } from "./wire.js";

/**
 * undici's Pool from its own module: the package's entry point loads all of undici (fetch,
 * WebSocket, caches, …) for 90 ms of every CLI run; the Pool alone takes 30 ms. The same module the
 * entry point exports (one class, one module cache); the path is pinned with undici's exact version.
 */
const Pool = createRequire(import.meta.url)("undici/lib/dispatcher/pool.js") as typeof UndiciPool;
type Pool = UndiciPool;

/** How long one attempt may take; every timeout fails the attempt with a TransportError (retried when safe). */
export interface Timeouts {
  /** @default 5000 */
  readonly connectMs: number;
  /** Time to the response headers (undici's; only when shorter than `requestMs`). @default 30000 */
  readonly headersMs: number;
  /** Time between body chunks (undici's; only when shorter than `requestMs`). @default 30000 */
  readonly bodyMs: number;
  /**
   * Deadline of one attempt: connecting, the headers and the whole body, however slowly it drips.
   * Each retry gets its own. @default 60000
   */
  readonly requestMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 5000, headersMs: 30_000, bodyMs: 30_000, requestMs: DEFAULT_REQUEST_DEADLINE_MS };

export interface TransportOptions {
  /** Origin of the service, e.g. `http://127.0.0.1:4566`. */
  readonly endpoint: string;
  readonly credentials: Credentials;
  /** The keep-alive pool to use (shared between clients of one origin); the transport creates and owns one when absent. */
  readonly dispatcher?: Dispatcher;
  readonly retry?: Partial<RetryPolicy>;
  /** Client-side limits; `false` disables limiting (429s are still retried). */
  readonly rateLimit?: RateLimiterOptions | false;
  readonly timeouts?: Partial<Timeouts>;
  /**
   * The most bytes one answer may hold; a larger one is aborted as soon as it passes the limit and
   * rejected with a ContractViolationError (never retried). @default 64 MiB (DEFAULT_MAX_ANSWER_BYTES)
   */
  readonly maxAnswerBytes?: number;
}

/** One call of an operation: what to send, whether resending is safe, and the contract of the answer. */
export interface CallSpec<T> {
  readonly operation: string;
  readonly method: WireRequest["method"];
  readonly path: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** A body sent as text (`text/plain`) instead of JSON: a state file uploaded to the control interface. */
  readonly text?: string;
  readonly idempotent: boolean;
  /** The success status the contract promises. */
  readonly expectStatus: number;
  /** Schema of the success body; absent when the contract promises an empty body. */
  readonly response?: z.ZodType<T>;
  /** The success body is text, answered as is (a checkpoint downloaded from the control interface). */
  readonly textAnswer?: boolean;
  readonly signal?: AbortSignal | undefined;
}

export interface PoolOptions {
  readonly timeouts?: Partial<Timeouts>;
  /** Keep-alive connections to the origin. @default 64 */
  readonly connections?: number;
  /**
   * Requests in flight per connection. Above 1, GET requests are pipelined (undici sends a POST,
   * PATCH or DELETE only on a connection with nothing in flight): fewer connections carry the same
   * concurrency, at the price of head-of-line blocking behind a slow answer. @default 1
   */
  readonly pipelining?: number;
}

/** A keep-alive undici pool for one origin. */
export function createPool(endpoint: string, options: PoolOptions = {}): Pool {
  const t = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  return new Pool(new URL(endpoint).origin, {
    connections: options.connections ?? 64,
    pipelining: options.pipelining ?? 1,
    keepAliveTimeout: 30_000,
    connectTimeout: t.connectMs,
    headersTimeout: t.headersMs,
    bodyTimeout: t.bodyMs,
  });
}

/**
 * Sends operations to one origin: credentials, JSON, retries and rate limiting composed as layers
 * over one undici dispatcher, every response body consumed, every answer checked against its contract.
 */
export class Transport {
  readonly #origin: string;
  readonly #credentials: Credentials;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #send: Send;
  readonly #timeouts: Timeouts;
  readonly #limits: ExchangeLimits;
  /** undici's own timeouts, left to the deadline when they are not shorter. */
  readonly #headersTimeout: number;
  readonly #bodyTimeout: number;
  readonly #redact = (text: string): string => this.#credentials.redact(text);
  /**
   * Decodes an error answer with every text that can reach a message redacted (a server may echo the
   * token): the raw text before decoding, and every string decoded from it.
   */
  readonly #decode = (request: WireRequest, response: WireResponse): ConvergeError => decodeError(request, {
    ...response,
    text: this.#redact(response.text),
    errorType: response.errorType === undefined ? undefined : this.#redact(response.errorType),
    requestId: response.requestId === undefined ? undefined : this.#redact(response.requestId),
  }, this.#redact);
  /** The headers of a request without a body, and of one with a JSON body (shared, never mutated). */
  readonly #plainHeaders: Readonly<Record<string, string>>;
  readonly #jsonHeaders: Readonly<Record<string, string>>;
  readonly limiter: AdaptiveRateLimiter | undefined;

  constructor(options: TransportOptions) {
    this.#origin = new URL(options.endpoint).origin;
    this.#credentials = options.credentials;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.#limits = { deadlineMs: this.#timeouts.requestMs, maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES };
    validateLimits(this.#timeouts, this.#limits.maxAnswerBytes);
    // undici's timers are coarse (they may fire up to a second late): past the deadline, the deadline's message says what happened
    const undiciTimeout = (ms: number) => (ms < this.#timeouts.requestMs ? ms : this.#timeouts.requestMs + 1000);
    this.#headersTimeout = undiciTimeout(this.#timeouts.headersMs);
    this.#bodyTimeout = undiciTimeout(this.#timeouts.bodyMs);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? createPool(this.#origin, { timeouts: this.#timeouts });
    this.#plainHeaders = Object.freeze({ authorization: this.#credentials.authorizationHeader() });
    this.#jsonHeaders = Object.freeze({ "content-type": "application/json", authorization: this.#credentials.authorizationHeader() });
    this.limiter = options.rateLimit === false ? undefined : new AdaptiveRateLimiter(options.rateLimit ?? {});
    const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#send = composeLayers(
      [retryLayer(policy, this.#decode), ...(this.limiter ? [rateLimitLayer(this.limiter)] : [])],
      (request) => this.#dispatch(request),
    );
  }

  get origin(): string {
    return this.#origin;
  }

  /** Sends one call of `service` and answers its body, checked against the contract. */
  async call<T>(service: ServiceName, spec: CallSpec<T>): Promise<T> {
    const body = spec.text ?? (spec.body === undefined ? undefined : JSON.stringify(spec.body));
    // every request has the same shape, so that the layers below stay monomorphic
    const request: WireRequest = {
      service,
      operation: spec.operation,
      method: spec.method,
      path: spec.query === undefined ? spec.path : spec.path + queryString(spec.query),
      headers: spec.text === undefined ? this.#headersFor(spec.headers, body !== undefined) : { ...this.#headersFor(spec.headers, false), "content-type": "text/plain; charset=utf-8" },
      body,
      idempotent: spec.idempotent,
      signal: spec.signal,
    };
    let response: WireResponse;
    try {
      response = await this.#send(request);
    } catch (error) {
      if (spec.signal?.aborted && !isConvergeError(error)) throw new AbortedError(`${service} ${spec.operation}`);
      throw error;
    }
    if (response.status < 200 || response.status >= 300) throw this.#decode(request, response);
    if (response.status !== spec.expectStatus) {
      throw new ContractViolationError(service, spec.operation, [`status ${response.status}, expected ${spec.expectStatus}`]);
    }
    return parseBody(request, spec, response, this.#redact);
  }

  /** Closes the pool if this transport created it. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #headersFor(extra: Readonly<Record<string, string>> | undefined, json: boolean): Readonly<Record<string, string>> {
    const base = json ? this.#jsonHeaders : this.#plainHeaders;
    return extra === undefined ? base : { ...extra, ...base };
  }

  async #dispatch(request: WireRequest): Promise<WireResponse> {
    let answer: Answer;
    try {
      answer = await exchange(this.#dispatcher, {
        origin: this.#origin,
        path: request.path,
        method: request.method,
        headers: request.headers,
        body: request.body,
        // undici holds back the requests behind any request but a HEAD until its answer's headers
        // are in; reads are answered at once, so on a pipelining pool they may go out back to back
        blocking: request.method !== "GET",
        headersTimeout: this.#headersTimeout,
        bodyTimeout: this.#bodyTimeout,
      }, request.signal, this.#limits);
    } catch (error) {
      if (isExchangeLimitError(error) && error.code === "CONVERGE_ANSWER_TOO_LARGE" && !request.signal?.aborted) {
        throw new ContractViolationError(request.service, request.operation, [`${error.message}; endpoint ${this.#redact(this.#origin)}`]);
      }
      throw toTransportError(request, error, this.#redact, this.#origin);
    }
    // the answer stays as sent (a success body is data, not to be rewritten); errors redact it when they are built
    return {
      status: answer.status,
      text: answer.text,
      errorType: header(answer.headers, "x-svc-errortype"),
      requestId: header(answer.headers, "x-svc-request-id"),
      retryAfterMs: retryAfter(answer.headers),
    };
  }
}

/** Refuses limits that are not positive finite numbers, naming the option and the value received. */
function validateLimits(timeouts: Timeouts, maxAnswerBytes: number): void {
  for (const [name, value] of [...Object.entries(timeouts), ["maxAnswerBytes", maxAnswerBytes]] as const) {
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new RangeError(`${name} ${JSON.stringify(value)} is not valid: expected a positive number`);
    }
  }
}

function header(headers: Answer["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function retryAfter(headers: Answer["headers"]): number | undefined {
  const precise = Number(header(headers, "x-svc-retry-after-ms"));
  if (Number.isFinite(precise) && precise >= 0 && header(headers, "x-svc-retry-after-ms") !== undefined) return precise;
  const value = header(headers, "retry-after");
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function queryString(query: Readonly<Record<string, string | undefined>> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

const NEVER_DELIVERED = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT", "EHOSTUNREACH", "ENETUNREACH"]);

function toTransportError(request: WireRequest, error: unknown, redact: (text: string) => string, origin: string): ConvergeError {
  if (request.signal?.aborted) return new AbortedError(`${request.service} ${request.operation}`);
  const code = (error as { code?: string }).code;
  const detail = redact(error instanceof Error ? error.message : String(error));
  return new TransportError(request.service, request.operation, code, detail, !NEVER_DELIVERED.has(code ?? ""), redact(origin));
}

/**
 * The error a non-2xx answer means: an ApiError from `x-svc-ErrorType` and the body. `redact` is
 * applied to every string taken from the decoded body (JSON escapes hide what redacting the raw
 * text looks for).
 */
export function decodeError(request: WireRequest, response: WireResponse, redact: (text: string) => string = (text) => text): ConvergeError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = response.text ? JSON.parse(response.text) : {};
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // a non-JSON error body still makes an ApiError; its status and header say what happened
  }
  const text = (key: string) => (typeof body[key] === "string" ? redact(body[key] as string) : undefined);
  const fieldList = Array.isArray(body.fieldList)
    ? body.fieldList.filter((f): f is { name: string; message: string } => typeof f?.name === "string" && typeof f?.message === "string")
      .map((field) => ({ name: redact(field.name), message: redact(field.message) }))
    : undefined;
  return new ApiError({
    service: request.service,
    operation: request.operation,
    status: response.status,
    errorName: response.errorType ?? text("errorType") ?? `HTTP${response.status}`,
    message: text("message") ?? `HTTP ${response.status} without a message`,
    requestId: response.requestId,
    fieldList,
    reason: text("reason"),
    resourceType: text("resourceType"),
    limitType: text("limitType"),
  });
}

/**
 * The success body checked against its contract. A body that breaks it becomes an error whose
 * messages are built from the redacted text (before any excerpt is cut, so no token prefix shows).
 */
function parseBody<T>(request: WireRequest, spec: CallSpec<T>, response: WireResponse, redact: (text: string) => string): T {
  if (spec.textAnswer) return response.text as T;
  if (!spec.response) {
    if (response.text.length > 0) throw new ContractViolationError(request.service, request.operation, ["expected an empty body"]);
    return undefined as T;
  }
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    throw new ContractViolationError(request.service, request.operation, [`body is not JSON: ${redact(response.text).slice(0, 80)}`]);
  }
  const result = spec.response.safeParse(json);
  if (!result.success) {
    let shown: unknown;
    try {
      shown = JSON.parse(redact(response.text));
    } catch {
      shown = undefined;
    }
    throw new ContractViolationError(request.service, request.operation, describeZodIssues(result.error.issues, shown).map((issue) => redact(issue.message)));
  }
  return result.data;
}
