/** One page of a listing: its items and the token of the next page, if any. */
export interface Page<T> {
  readonly items: ReadonlyArray<T>;
  readonly nextToken?: string | undefined;
}

/**
 * Yields every item of a paginated listing, fetching each page only when the previous one has been
 * consumed. Stops on the first page without a token.
 */
export async function* paginate<T>(fetchPage: (nextToken: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  let token: string | undefined;
  do {
    const page = await fetchPage(token);
    yield* page.items;
    token = page.nextToken;
  } while (token !== undefined && token !== "");
}

/** Reads an async iterable to the end. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
