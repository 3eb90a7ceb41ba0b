import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../contract/gateway.js";
import { MAX_LIST_REGIONS_RESULTS } from "../contract/account.js";
import { MAX_INTEGRATIONS_PER_API, MAX_ROUTES_PER_API } from "../contract/service-limits.js";

/**
 * The most bytes one answer may hold before the transport aborts it: 64 MiB. The largest honest
 * answer is a full page: at most 500 items (MAX_PAGE_SIZE in src/contract/gateway.ts), and the
 * largest item the contract describes (an Integration with every field set: URI, description,
 * request and response parameter maps, TLS config) is a few KiB, so a page is a few MiB at most;
 * 64 MiB leaves a margin of more than ten. An item could in theory approach the service's 1 MiB
 * request body limit (MAX_BODY_BYTES in src/contract/service-limits.ts); a caller holding such
 * items raises `maxAnswerBytes`.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Deadline of one attempt, from handing the request to the pool to the answer's last byte. */
export const DEFAULT_REQUEST_DEADLINE_MS = 60_000;

/** What bounds one listing: the most items an honest listing holds, and the page size a service may use at the least. */
export interface ListingBound {
  /** The most items the service lets one listing hold. */
  readonly maxItems: number;
  /** The smallest page an honest service answers with (it may cap the size asked for at its default). */
  readonly smallestFullPage: number;
}

/**
 * The bound of every listing the clients page through. GetRoutes and GetIntegrations: the
 * service's 300 per API. GetApis and ListRegions have no limit in the contract: 10,000 APIs (the
 * public service's default quota is 600 per Region) and 1,000 Regions (it has fewer than 40).
 */
export const LISTING_BOUNDS = {
  GetRoutes: { maxItems: MAX_ROUTES_PER_API, smallestFullPage: DEFAULT_PAGE_SIZE },
  GetIntegrations: { maxItems: MAX_INTEGRATIONS_PER_API, smallestFullPage: DEFAULT_PAGE_SIZE },
  GetApis: { maxItems: 10_000, smallestFullPage: DEFAULT_PAGE_SIZE },
  ListRegions: { maxItems: 1_000, smallestFullPage: MAX_LIST_REGIONS_RESULTS },
} as const satisfies Record<string, ListingBound>;

/**
 * The most pages one listing may take: twice the pages its most items need at the smaller of the
 * page size asked for and the smallest full page (items created while it pages may add some), plus
 * two (a last, empty page). GetRoutes at the default page size: 2 × ⌈300 / 100⌉ + 2 = 8 pages.
 */
export function maxPagesOf(bound: ListingBound, pageSize: number): number {
  const perPage = Math.max(1, Math.min(pageSize, bound.smallestFullPage, MAX_PAGE_SIZE));
  return 2 * Math.ceil(bound.maxItems / perPage) + 2;
}

/** The longest request timeout a user may set (`--request-timeout`, `request_timeout`): one day. */
export const MAX_REQUEST_TIMEOUT_SECONDS = 86_400;

/**
 * A request timeout as a user gives it, seconds (fractions allowed) as a number or its text, in
 * milliseconds; undefined when it is not a number above 0 and at most {@link MAX_REQUEST_TIMEOUT_SECONDS}.
 */
export function requestTimeoutMs(seconds: string | number): number | undefined {
  const value = typeof seconds === "number" ? seconds : /^\s*\d+(\.\d+)?\s*$/.test(seconds) ? Number(seconds) : NaN;
  return value > 0 && value <= MAX_REQUEST_TIMEOUT_SECONDS ? Math.max(1, Math.round(value * 1000)) : undefined;
}

/** The refusal of a request timeout `requestTimeoutMs` does not take: where it came from, the value received, what is expected. */
export function invalidRequestTimeout(source: string, value: string | number): string {
  return `${source} ${JSON.stringify(value)} is not valid: expected seconds, a number above 0 and at most ${MAX_REQUEST_TIMEOUT_SECONDS}, e.g. 60`;
}

/** The clients' timeouts for a deadline of `requestMs` per attempt: undici's own header and body timers set to it, so that they do not cut it shorter. */
export function timeoutsOfDeadline(requestMs: number): { readonly requestMs: number; readonly headersMs: number; readonly bodyMs: number } {
  return { requestMs, headersMs: requestMs, bodyMs: requestMs };
}
