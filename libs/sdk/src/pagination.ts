// Every list of the API, whatever its paging style, as one shape: iterate every item with
// `for await`, walk the pages with `pages()`, or read one with `page()`.

/** A list call: async-iterable over every item of every page, from the query's position on. */
export interface Paginated<Item, Page> extends AsyncIterable<Item> {
  /** The one page the query names (its `cursor` or `page`). */
  page(): Promise<Page>;
  /** Every page in turn, from the query's position on. */
  pages(): AsyncIterable<Page>;
}

function paginated<Item, Page>(
  pages: () => AsyncGenerator<Page>,
  first: () => Promise<Page>,
  items: (page: Page) => Item[],
) {
  return {
    page: first,
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* items(page);
    },
  } satisfies Paginated<Item, Page>;
}

type CursorPage<Item> = { items: Item[]; next_cursor: string | null };

/** Keyset lists (`cursor` in, `next_cursor` out, null on the last page). */
export function cursorPaginated<Item, Page extends CursorPage<Item>, Query extends { cursor?: string }>(
  query: Query,
  fetchPage: (query: Query) => Promise<Page>,
): Paginated<Item, Page> {
  return paginated(
    async function* () {
      let cursor = query.cursor;
      for (;;) {
        const page = await fetchPage(cursor === undefined ? query : { ...query, cursor });
        yield page;
        if (page.next_cursor === null || page.items.length === 0) return;
        cursor = page.next_cursor;
      }
    },
    () => fetchPage(query),
    (page) => page.items,
  );
}

type NumberedPage<Item> = { items: Item[]; total: number; page: number; limit: number };

/**
 * Numbered lists (`page` from 1 and `limit`, with `total`): the analytics. Stops at the last page, or
 * where the API stops serving (`maxDepth` rows: page * limit past it is refused).
 */
export function numberedPaginated<
  Item,
  Page extends NumberedPage<Item>,
  Query extends { page?: number; limit?: number },
>(query: Query, fetchPage: (query: Query) => Promise<Page>, maxDepth: number): Paginated<Item, Page> {
  return paginated(
    async function* () {
      for (let number = query.page ?? 1; ; number += 1) {
        const page = await fetchPage({ ...query, page: number });
        yield page;
        const seen = page.page * page.limit;
        if (page.items.length === 0 || seen >= page.total || (page.page + 1) * page.limit > maxDepth) return;
      }
    },
    () => fetchPage(query),
    (page) => page.items,
  );
}

/** Endpoints that answer the whole list at once (API keys, webhook endpoints): one page. */
export function singlePage<Item>(fetchAll: () => Promise<Item[]>): Paginated<Item, Item[]> {
  return paginated(
    async function* () {
      yield await fetchAll();
    },
    fetchAll,
    (page) => page,
  );
}
