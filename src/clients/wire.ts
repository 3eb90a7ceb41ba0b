import type { ServiceName } from "./errors.js";

/** One HTTP exchange as the transport layers see it. */
export interface WireRequest {
  readonly service: ServiceName;
  readonly operation: string;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | undefined;
  /** Safe to send again when the first answer was lost (reads, puts, updates, deletes). */
  readonly idempotent: boolean;
  readonly signal?: AbortSignal | undefined;
}

export interface WireResponse {
  readonly status: number;
  readonly text: string;
  readonly errorType: string | undefined;
  readonly requestId: string | undefined;
  /** From `x-svc-retry-after-ms`, else `Retry-After` (seconds or HTTP date). */
  readonly retryAfterMs: number | undefined;
}

export type Send = (request: WireRequest) => Promise<WireResponse>;
/** A transport layer: wraps the next `Send` (retries, rate limiting, …). */
export type Layer = (next: Send) => Send;

/** Composes layers so that the first one is outermost. */
export function composeLayers(layers: ReadonlyArray<Layer>, innermost: Send): Send {
  return layers.reduceRight<Send>((next, layer) => layer(next), innermost);
}

/** Cancellable sleep; rejects with the signal's reason when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
