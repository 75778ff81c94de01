import { Type } from '@sinclair/typebox';
import { Id, Provider, StringEnum } from './common.schemas.ts';

export const AnalyticsQuery = Type.Object(
  {
    postId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    accountId: Type.Optional(Id),
    platform: Type.Optional(Provider),
    fromDate: Type.Optional(Type.String({ format: 'date-time' })),
    toDate: Type.Optional(Type.String({ format: 'date-time' })),
    refresh: Type.Optional(Type.Boolean()),
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);

const Metrics = Type.Record(Type.String(), Type.Integer());
export const AnalyticsRow = Type.Object({
  post_id: Type.String(),
  account_id: Type.Optional(Type.String()),
  platform: Provider,
  platform_post_id: Type.String(),
  platform_post_url: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  published_at: Type.Optional(Type.String()),
  metrics: Metrics,
  warnings: Type.Array(Type.String()),
  sync_status: StringEnum(['synced', 'partial', 'pending', 'failed', 'requires_reconnect'] as const),
  error_message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  last_updated_at: Type.Optional(Type.String()),
  stale_after: Type.Optional(Type.String()),
});
export const AnalyticsPage = Type.Object({
  items: Type.Array(AnalyticsRow),
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  overview: Type.Object({ posts: Type.Integer({ minimum: 0 }), metrics: Metrics }),
});

export const Stats = Type.Object({
  posts_this_month: Type.Integer({ minimum: 0 }),
  connected_networks: Type.Integer({ minimum: 0 }),
  total_networks: Type.Integer({ minimum: 0 }),
  queue_processing: Type.Integer({ minimum: 0 }),
  success_rate: Type.Number({ minimum: 0, maximum: 1 }),
});
export const CheckoutSession = Type.Object({ url: Type.String({ format: 'uri' }) });
