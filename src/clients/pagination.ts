import { maxPagesOf, type ListingBound } from "./answer-limits.js";
import { ContractViolationError, type ServiceName } from "./errors.js";

/** One page of a listing: its items and the token of the next page, if any. */
export interface Page<T> {
  readonly items: ReadonlyArray<T>;
  readonly nextToken?: string | undefined;
}

/** Which listing is paged (for its errors) and what bounds it. */
export interface Listing {
  readonly service: ServiceName;
  readonly operation: string;
  readonly bound: ListingBound;
  /** The page size asked for. */
  readonly pageSize: number;
}

/**
 * Yields every item of a paginated listing, fetching each page only when the previous one has been
 * consumed. Stops on the first page without a token. With `listing`, the listing is finite whatever
 * the service answers: a next token already seen in this listing, or more pages than
 * {@link maxPagesOf} allows, is a ContractViolationError naming the operation (never retried).
 */
export async function* paginate<T>(
  fetchPage: (nextToken: string | undefined) => Promise<Page<T>>,
  listing?: Listing,
): AsyncGenerator<T, void, undefined> {
  const maxPages = listing === undefined ? Infinity : maxPagesOf(listing.bound, listing.pageSize);
  /** Each token this listing was answered, with the page that answered it (1-based). */
  const seen = new Map<string, number>();
  let token: string | undefined;
  for (let page = 1; ; page += 1) {
    const answer = await fetchPage(token);
    yield* answer.items;
    token = answer.nextToken;
    if (token === undefined || token === "") return;
    if (listing === undefined) continue;
    const first = seen.get(token);
    if (first !== undefined) {
      throw new ContractViolationError(listing.service, listing.operation, [
        `the next token of page ${page} repeats the one page ${first} answered: the listing would never end (stopped after ${page} requests)`,
      ]);
    }
    if (page >= maxPages) {
      throw new ContractViolationError(listing.service, listing.operation, [
        `the listing did not end after ${page} pages, the most a listing of at most ${listing.bound.maxItems} items takes (stopped)`,
      ]);
    }
    seen.set(token, page);
  }
}

/** Reads an async iterable to the end. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
