import type { Dispatcher } from "undici";
import { AccountClient, type AccountClientOptions } from "./account-client.js";
import { GatewayClient } from "./gateway-client.js";
import { Transport, createPool, type PoolOptions, type TransportOptions } from "./transport.js";
import type { WriteListener } from "./write-listener.js";

export * from "./errors.js";
export { Credentials } from "./credentials.js";
export { AccountClient, type AccountClientOptions } from "./account-client.js";
export { GatewayClient } from "./gateway-client.js";
export { Transport, createPool, type PoolOptions, type TransportOptions, type Timeouts, type CallSpec } from "./transport.js";
export { AdaptiveRateLimiter, type RateLimit, type RateLimiterOptions } from "./rate-limiter.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
export { collect, paginate, type Listing, type Page } from "./pagination.js";
export { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_REQUEST_DEADLINE_MS, invalidRequestTimeout, LISTING_BOUNDS, MAX_REQUEST_TIMEOUT_SECONDS, maxPagesOf, requestTimeoutMs, timeoutsOfDeadline, type ListingBound } from "./answer-limits.js";
export type { AcknowledgedWrite, WriteListener } from "./write-listener.js";
export type { ExchangeListener, ObservedExchange } from "./exchange-listener.js";

export interface ClientsOptions extends Omit<TransportOptions, "endpoint"> {
  /** Origin of both services. */
  readonly endpoint: string;
  /** A different origin for the account service. @default endpoint */
  readonly accountEndpoint?: string;
  /** A different origin for the gateway service. @default endpoint */
  readonly gatewayEndpoint?: string;
  readonly account?: AccountClientOptions;
  /** Connections per origin when the clients create their own pools. @default 64 */
  readonly connections?: number;
  /** Requests in flight per connection of those pools (see {@link PoolOptions.pipelining}). @default 1 */
  readonly pipelining?: number;
  /** Told of every write either client made and the service acknowledged (see {@link WriteListener}). */
  readonly onWrite?: WriteListener | undefined;
}

/** Both clients, sharing one keep-alive pool per origin; `close()` closes the pools they created. */
export interface Clients {
  readonly account: AccountClient;
  readonly gateway: GatewayClient;
  close(): Promise<void>;
}

export function createClients(options: ClientsOptions): Clients {
  const pools = new Map<string, Dispatcher>();
  const owned: Dispatcher[] = [];
  const transportFor = (endpoint: string) => {
    const origin = new URL(endpoint).origin;
    let dispatcher = options.dispatcher ?? pools.get(origin);
    if (!dispatcher) {
      dispatcher = createPool(origin, { timeouts: options.timeouts, connections: options.connections, pipelining: options.pipelining });
      pools.set(origin, dispatcher);
      owned.push(dispatcher);
    }
    return new Transport({ ...options, endpoint: origin, dispatcher });
  };
  const accountTransport = transportFor(options.accountEndpoint ?? options.endpoint);
  const gatewayTransport = transportFor(options.gatewayEndpoint ?? options.endpoint);
  return {
    account: new AccountClient(accountTransport, { ...options.account, onWrite: options.account?.onWrite ?? options.onWrite }),
    gateway: new GatewayClient(gatewayTransport, { onWrite: options.onWrite }),
    async close() {
      await Promise.all(owned.map((dispatcher) => dispatcher.close()));
    },
  };
}
