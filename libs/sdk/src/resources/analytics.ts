// Post analytics (numbered pages) and the dashboard's stats.
import type { RequestOptions, Call } from '../call.ts';
import { openApiDocument, type QueryParams, type ResponseData } from '../contract.ts';
import { numberedPaginated } from '../pagination.ts';

type AnalyticsQuery = QueryParams<'listPostAnalytics'>;

/** How deep the API pages analytics (`page * limit` at most), as its document says. */
function analyticsDepth(): number {
  const operation = (openApiDocument.paths as Record<string, Record<string, { parameters?: unknown[] }>>)[
    '/v1/analytics/posts'
  ]?.get;
  const page = (operation?.parameters as { name: string; schema: { maximum?: number } }[] | undefined)?.find(
    (parameter) => parameter.name === 'page',
  );
  return page?.schema.maximum ?? Number.POSITIVE_INFINITY;
}

export function analyticsResource(call: Call) {
  const depth = analyticsDepth();
  return {
    /** Analytics rows: `for await` over every row (up to the API's depth), or `.page()` for one page. */
    list: (query: AnalyticsQuery = {}, options?: RequestOptions) =>
      numberedPaginated<
        ResponseData<'listPostAnalytics'>['items'][number],
        ResponseData<'listPostAnalytics'>,
        AnalyticsQuery
      >(query, (page) => call('listPostAnalytics', { query: page, ...options }), depth),
  };
}

/** The dashboard overview (dashboard JWT only). */
export function statsOf(call: Call) {
  return (options?: RequestOptions) => call('getStats', { ...options });
}
