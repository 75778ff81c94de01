import { Type } from '@sinclair/typebox';
import { ANALYTICS_MAX_DEPTH, AnalyticsPageView, AnalyticsRowView } from '@svc/contracts';
import { Id, Provider } from './common.schemas.ts';

/** Query of GET /v1/analytics/posts (spec: Analytics); anything out of range is 400 validation_error. */
export const AnalyticsQuery = Type.Object(
  {
    postId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'Our post id or the network post id.' }),
    ),
    accountId: Type.Optional(Id),
    platform: Type.Optional(Provider),
    fromDate: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Rows whose created_at is at or after it (ISO 8601 with timezone).',
      }),
    ),
    toDate: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Rows whose created_at is at or before it (ISO 8601 with timezone).',
      }),
    ),
    refresh: Type.Optional(
      Type.Boolean({
        description:
          "true: read every row of the page from its network again, fresh or not, except rows read in the last minute and rows past the organization's network-read budget, which are served as they are.",
      }),
    ),
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: ANALYTICS_MAX_DEPTH,
        default: 1,
        description: `page * limit is at most ${ANALYTICS_MAX_DEPTH}: the newest ${ANALYTICS_MAX_DEPTH} rows of a filter (narrow it, by dates for one, to reach older rows).`,
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);

// The row and page shapes are declared once, in the message contracts the RPC reply is validated with.
export const AnalyticsRow = AnalyticsRowView;
export const AnalyticsPage = AnalyticsPageView;

export const Stats = Type.Object({
  posts_this_month: Type.Integer({ minimum: 0 }),
  connected_networks: Type.Integer({ minimum: 0 }),
  total_networks: Type.Integer({ minimum: 0 }),
  queue_processing: Type.Integer({ minimum: 0 }),
  success_rate: Type.Number({ minimum: 0, maximum: 1 }),
});
export const CheckoutSession = Type.Object({ url: Type.String({ format: 'uri' }) });
