import { Type, type Static } from '@sinclair/typebox';
import { Provider } from './accounts.schemas.ts';

/** Shapes shared by the analytics messages and the gateway's HTTP schemas (spec: Post analytics row). */
/**
 * How deep a list of analytics rows pages: `page * limit` at most this, the newest 10,000 rows of a
 * filter (narrow the filter, by dates for one, to reach older rows). A filtered page is read with an
 * OFFSET from an index, so the depth bounds the entries one read walks.
 */
export const ANALYTICS_MAX_DEPTH = 10_000;
export const analyticsPageTooDeep = (page: number, limit: number) => page * limit > ANALYTICS_MAX_DEPTH;

export const SYNC_STATUSES = ['synced', 'partial', 'pending', 'failed', 'requires_reconnect'] as const;
export type SyncStatusType = (typeof SYNC_STATUSES)[number];
export const SyncStatus = Type.Unsafe<SyncStatusType>({ type: 'string', enum: [...SYNC_STATUSES] });

/** Metric keys per network as the spec lists them; every value an integer read from the network. */
export const Metrics = Type.Record(Type.String(), Type.Integer());

export const AnalyticsRowView = Type.Object({
  post_id: Type.String(),
  account_id: Type.Optional(Type.String()),
  platform: Provider,
  platform_post_id: Type.String(),
  platform_post_url: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  published_at: Type.Optional(Type.String({ format: 'date-time' })),
  metrics: Metrics,
  warnings: Type.Array(Type.String()),
  sync_status: SyncStatus,
  error_message: Type.Union([Type.String(), Type.Null()]),
  last_updated_at: Type.Optional(Type.String({ format: 'date-time' })),
  stale_after: Type.Optional(Type.String({ format: 'date-time' })),
});
export type AnalyticsRowViewType = Static<typeof AnalyticsRowView>;

export const AnalyticsPageView = Type.Object({
  items: Type.Array(AnalyticsRowView),
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100 }),
  overview: Type.Object({ posts: Type.Integer({ minimum: 0 }), metrics: Metrics }),
});
export type AnalyticsPageViewType = Static<typeof AnalyticsPageView>;
