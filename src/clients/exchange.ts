import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header.js";

/** What bounds one exchange: its deadline and the size of its answer. */
export interface ExchangeLimits {
  /** The whole exchange, from dispatch to the answer's last byte, in milliseconds. */
  readonly deadlineMs: number;
  /** The most bytes the answer's body may hold. */
  readonly maxAnswerBytes: number;
}

/** An exchange stopped by one of its {@link ExchangeLimits}: `code` says which. */
export class ExchangeLimitError extends Error {
  readonly code: "CONVERGE_DEADLINE" | "CONVERGE_ANSWER_TOO_LARGE";
  /** The limit that was passed: milliseconds or bytes. */
  readonly limit: number;

  constructor(code: ExchangeLimitError["code"], limit: number, message: string) {
    super(message);
    this.name = "ExchangeLimitError";
    this.code = code;
    this.limit = limit;
  }
}

/** Whether `value` is an {@link ExchangeLimitError}. */
export function isExchangeLimitError(value: unknown): value is ExchangeLimitError {
  return value instanceof ExchangeLimitError;
}

/** What one exchange brings back: the status, the response headers and the whole body as text. */
export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/**
 * Sends one request through `dispatcher` and reads the whole answer. It uses undici's handler API
 * rather than `request()`: the answers here are small JSON documents read whole, and a body stream
 * per response (with its own promise and buffering) cost about a quarter of the client's throughput
 * (see the client-vs-autocannon benchmark). The body is always read to its end or the request
 * aborted; `signal` aborts the exchange with the signal's reason. `limits` bound it whatever the
 * other side does: past the deadline (a slow drip included) or once the body passes the size limit
 * (declared or streamed), the request is aborted and the promise rejects with an ExchangeLimitError;
 * a body is never held beyond the limit.
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal | undefined, limits: ExchangeLimits): Promise<Answer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const collector = new AnswerCollector(resolve, reject, signal, limits);
    try {
      dispatcher.dispatch(options, collector);
    } catch (error) {
      // settles the promise and clears the deadline's timer, which would otherwise hold the process
      collector.onResponseError(undefined, error as Error);
    }
  });
}

/**
 * A dispatch handler that collects the body and settles one promise exactly once. An abort rejects
 * at once, also while the request still waits in the pool's queue (undici then aborts it when it
 * reaches a connection, before anything is written).
 */
class AnswerCollector implements Dispatcher.DispatchHandler {
  readonly #resolve: (answer: Answer) => void;
  readonly #reject: (error: unknown) => void;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: (() => void) | undefined;
  readonly #maxAnswerBytes: number;
  readonly #deadline: NodeJS.Timeout;
  #bytes = 0;
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];

  constructor(resolve: (answer: Answer) => void, reject: (error: unknown) => void, signal: AbortSignal | undefined, limits: ExchangeLimits) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
    this.#maxAnswerBytes = limits.maxAnswerBytes;
    this.#deadline = setTimeout(() => this.#stop(new ExchangeLimitError(
      "CONVERGE_DEADLINE",
      limits.deadlineMs,
      `the answer was not complete within the deadline of ${seconds(limits.deadlineMs)} per attempt`,
    )), limits.deadlineMs);
    if (signal) {
      this.#onAbort = () => {
        this.#controller?.abort(signal.reason);
        this.#fail(signal.reason);
      };
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal?.aborted) controller.abort(this.#signal.reason);
    else if (this.#settled) controller.abort(new Error("the exchange already failed"));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.#status = statusCode;
    this.#headers = headers;
    const declared = Number(headers["content-length"]);
    if (Number.isFinite(declared) && declared > this.#maxAnswerBytes) this.#tooLarge(`declares ${declared} bytes (content-length)`);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.#maxAnswerBytes) {
      this.#tooLarge(`passed it while streaming (${this.#bytes} bytes read)`);
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    const chunks = this.#chunks;
    let text: string;
    try {
      text = chunks.length === 0 ? "" : chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    } catch (error) {
      // a body that cannot become a string must still settle the promise, never leave it pending
      this.#reject(error);
      return;
    }
    this.#chunks.length = 0;
    this.#resolve({ status: this.#status, headers: this.#headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#fail(error);
  }

  #tooLarge(how: string): void {
    this.#stop(new ExchangeLimitError(
      "CONVERGE_ANSWER_TOO_LARGE",
      this.#maxAnswerBytes,
      `the answer is larger than the limit of ${mebibytes(this.#maxAnswerBytes)} (${this.#maxAnswerBytes} bytes): it ${how}`,
    ));
  }

  /** Aborts the request (when it reached a connection) and rejects with `error`. */
  #stop(error: ExchangeLimitError): void {
    if (this.#settled) return;
    this.#controller?.abort(error);
    this.#chunks.length = 0;
    this.#fail(error);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    this.#chunks.length = 0;
    this.#reject(error);
  }

  #detach(): void {
    clearTimeout(this.#deadline);
    if (this.#onAbort) this.#signal?.removeEventListener("abort", this.#onAbort);
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(3)} s`;
}

function mebibytes(bytes: number): string {
  const [size, unit] = bytes >= 1024 * 1024 ? [bytes / 1024 / 1024, "MiB"] : bytes >= 1024 ? [bytes / 1024, "KiB"] : [bytes, "B"];
  return `${Number.isInteger(size) ? size : size.toFixed(2)} ${unit}`;
}
