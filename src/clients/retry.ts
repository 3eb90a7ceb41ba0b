import { AmbiguousWriteError, isAborted, isTransportError, type ConvergeError } from "./errors.js";
import { sleep, type Layer, type WireRequest, type WireResponse } from "./wire.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. @default 6 */
  readonly maxAttempts: number;
  /** @default 100 */
  readonly baseDelayMs: number;
  /** Cap of one backoff delay (a longer Retry-After is still honored). @default 5000 */
  readonly maxDelayMs: number;
  /** No retry starts after this much time since the first attempt. @default 60000 */
  readonly maxTotalMs: number;
  /** Source of jitter in [0, 1). @default Math.random */
  readonly random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 100,
  maxDelayMs: 5000,
  maxTotalMs: 60_000,
  random: Math.random,
};

const RETRIABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/** Turns a final error response into the error the caller sees. */
export type ErrorDecoder = (request: WireRequest, response: WireResponse) => ConvergeError;

/**
 * The retry layer: exponential backoff with full jitter, at least the Retry-After the service asks
 * for, capped in attempts and total time. Idempotent requests are retried on 429, 5xx gateway-ish
 * statuses and lost connections. A create is retried only when the service certainly did not act
 * (429, or a connection that was never made); otherwise it fails with AmbiguousWriteError.
 */
export function retryLayer(policy: RetryPolicy, decode: ErrorDecoder): Layer {
  return (next) => async (request) => {
    const started = performance.now();
    for (let attempt = 1; ; attempt += 1) {
      let response: WireResponse | undefined;
      let failure: ConvergeError | undefined;
      try {
        response = await next(request);
        if (!RETRIABLE_STATUSES.has(response.status)) return response;
        failure = decode(request, response);
      } catch (error) {
        if (isAborted(error) || !isTransportError(error)) throw error;
        failure = error;
      }
      const certainlyNotApplied = response?.status === 429 || (isTransportError(failure) && !failure.maybeDelivered);
      if (!request.idempotent && !certainlyNotApplied) {
        throw new AmbiguousWriteError(request.service, request.operation, failure);
      }
      const backoff = policy.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delay = Math.max(backoff, response?.retryAfterMs ?? 0);
      const outOfTime = performance.now() - started + delay > policy.maxTotalMs;
      if (attempt >= policy.maxAttempts || outOfTime) {
        if (response) return response;
        throw failure;
      }
      await sleep(delay, request.signal);
    }
  };
}

