import { ANALYTICS_MAX_DEPTH, analyticsPageTooDeep, analyticsPostsList } from '@svc/contracts';
import { validationError } from '@svc/errors';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';

/**
 * Cached official post analytics, owned by analytics-sync, which refreshes missing or stale rows
 * within its read budget. Per-row failures come back in `sync_status`, never as an HTTP error.
 */
export function analyticsRoutes(rpc: RpcCaller): Route[] {
  return [
    defineRoute(operations.listPostAnalytics, async ({ query, principal, requestId }) => {
      if (
        query.fromDate !== undefined &&
        query.toDate !== undefined &&
        Date.parse(query.fromDate) > Date.parse(query.toDate)
      ) {
        throw validationError('fromDate is after toDate.', [
          { path: '/query/fromDate', message: 'must not be after toDate' },
        ]);
      }
      if (analyticsPageTooDeep(query.page ?? 1, query.limit ?? 25)) {
        throw validationError(`page * limit must be at most ${ANALYTICS_MAX_DEPTH}.`, [
          {
            path: '/query/page',
            message: `page * limit must be at most ${ANALYTICS_MAX_DEPTH}; narrow the filter to reach older rows`,
          },
        ]);
      }
      const page = await rpc(
        analyticsPostsList,
        {
          ...(query.postId === undefined ? {} : { post_id: query.postId }),
          ...(query.accountId === undefined ? {} : { account_id: query.accountId }),
          ...(query.platform === undefined ? {} : { platform: query.platform }),
          ...(query.fromDate === undefined ? {} : { from_date: query.fromDate }),
          ...(query.toDate === undefined ? {} : { to_date: query.toDate }),
          ...(query.refresh === undefined ? {} : { refresh: query.refresh }),
          page: query.page ?? 1,
          limit: query.limit ?? 25,
        },
        { orgId: principal.orgId, requestId },
      );
      return { status: 200, body: page };
    }),
  ];
}
