import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "undici/types/header.js";

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
 * aborted; `signal` aborts the exchange with the signal's reason.
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    dispatcher.dispatch(options, new AnswerCollector(resolve, reject, signal));
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
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];

  constructor(resolve: (answer: Answer) => void, reject: (error: unknown) => void, signal: AbortSignal | undefined) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#signal = signal;
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
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    const chunks = this.#chunks;
    const text = chunks.length === 0 ? "" : chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    this.#resolve({ status: this.#status, headers: this.#headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#fail(error);
  }

  #fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    this.#reject(error);
  }

  #detach(): void {
    if (this.#onAbort) this.#signal?.removeEventListener("abort", this.#onAbort);
  }
}
