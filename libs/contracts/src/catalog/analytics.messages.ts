import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import { Provider } from '../schemas/accounts.schemas.ts';
import { ANALYTICS_MAX_DEPTH, AnalyticsPageView } from '../schemas/analytics.schemas.ts';

// analytics-sync owns cached post analytics rows (docs/api-conventions.md, "Analytics"); the
// gateway reads them over RPC.

/**
 * One page of analytics rows of the organization. Missing or stale rows on the page (all of them
 * with `refresh`) are refreshed from the networks first, within the service's read budget, its
 * minimum refresh age and the organization's network-read budget.
 */
export const analyticsPostsList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'analytics.posts_list.v1',
  service: 'analytics-sync',
  payload: Type.Object({
    /** Our post id or the network's post id. */
    post_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    account_id: Type.Optional(Type.String({ minLength: 1 })),
    platform: Type.Optional(Provider),
    from_date: Type.Optional(Type.String({ format: 'date-time' })),
    to_date: Type.Optional(Type.String({ format: 'date-time' })),
    refresh: Type.Optional(Type.Boolean()),
    /** `page * limit` at most ANALYTICS_MAX_DEPTH (checked by the service). */
    page: Type.Integer({ minimum: 1, maximum: ANALYTICS_MAX_DEPTH }),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
  }),
  reply: AnalyticsPageView,
});
