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

export { createClients, type Clients, type ClientsOptions } from "./create-clients.js";
export { ControlClient, TestWorld, type ControlClientOptions, type InWorld, type JournalFilter, type WorldClientsOptions } from "./control-client.js";
