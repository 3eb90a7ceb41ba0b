import type { ServiceName } from "./errors.js";
import type { Layer } from "./wire.js";

/** One attempt of a call as it went on the wire: its answer's status, or that none came. */
export interface ObservedExchange {
  readonly service: ServiceName;
  /** The operation's name in its service's table (src/contract/). */
  readonly operation: string;
  /** The answer's status; undefined when no answer came (a connection refused, reset or timed out). */
  readonly status: number | undefined;
  /** The wait a throttled answer asked for (`x-svc-retry-after-ms`, else `Retry-After`). */
  readonly retryAfterMs: number | undefined;
}

/**
 * Told of every attempt the transport sends, retries included, after its answer (or its failure):
 * what a long-running caller counts (the continuous reconciler's `converge_requests_total`). It must
 * not throw.
 */
export type ExchangeListener = (exchange: ObservedExchange) => void;

/** The innermost transport layer: tells `listener` of each attempt, then passes its answer or failure on unchanged. */
export function exchangeListenerLayer(listener: ExchangeListener): Layer {
  return (next) => (request) => next(request).then(
    (response) => {
      listener({ service: request.service, operation: request.operation, status: response.status, retryAfterMs: response.retryAfterMs });
      return response;
    },
    (error: unknown) => {
      listener({ service: request.service, operation: request.operation, status: undefined, retryAfterMs: undefined });
      throw error;
    },
  );
}
