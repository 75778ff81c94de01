import { analyticsPostsList, type Envelope, type RpcHandlers } from '@svc/contracts';
import { AppError } from '@svc/errors';
import { listAnalytics, type ListDeps } from '../domain/list-analytics.ts';

export const analyticsRpc = [analyticsPostsList] as const;

function orgOf(envelope: Envelope): string {
  if (envelope.org_id === null) throw new AppError('validation_error', 'The request names no organization.');
  return envelope.org_id;
}

const dateOf = (value: string | undefined) => (value === undefined ? undefined : new Date(value));

export function analyticsRpcHandlers(deps: ListDeps): RpcHandlers<typeof analyticsRpc> {
  return {
    'analytics.posts_list.v1': (env) => {
      const { post_id, account_id, platform, from_date, to_date, refresh, page, limit } = env.payload;
      return listAnalytics(deps, {
        orgId: orgOf(env),
        filters: {
          postId: post_id,
          accountId: account_id,
          platform,
          fromDate: dateOf(from_date),
          toDate: dateOf(to_date),
        },
        page,
        limit,
        refresh: refresh === true,
      });
    },
  };
}
