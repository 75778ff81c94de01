import type { AnalyticsPageViewType, AnalyticsRowViewType } from '@svc/contracts';
import type { Network } from '@svc/providers';
import type { AnalyticsRecord } from '../data/analytics.repository.ts';

/** A row as API users see it (spec: Post analytics row): optional fields are left out when unknown. */
export function toRowView(row: AnalyticsRecord): AnalyticsRowViewType {
  return {
    post_id: row.postId,
    account_id: row.accountId,
    platform: row.platform as Network,
    platform_post_id: row.platformPostId,
    ...(row.platformPostUrl === null ? {} : { platform_post_url: row.platformPostUrl }),
    ...(row.text === null ? {} : { text: row.text }),
    created_at: row.createdAt.toISOString(),
    ...(row.publishedAt === null ? {} : { published_at: row.publishedAt.toISOString() }),
    metrics: row.metrics,
    warnings: row.warnings,
    sync_status: row.syncStatus,
    error_message: row.errorMessage,
    ...(row.lastUpdatedAt === null ? {} : { last_updated_at: row.lastUpdatedAt.toISOString() }),
    ...(row.staleAfter === null ? {} : { stale_after: row.staleAfter.toISOString() }),
  };
}

/** `overview`: the page's row count and every metric summed over the page's rows. */
export function overviewOf(items: readonly AnalyticsRowViewType[]): AnalyticsPageViewType['overview'] {
  const metrics: Record<string, number> = {};
  for (const item of items)
    for (const [key, value] of Object.entries(item.metrics)) metrics[key] = (metrics[key] ?? 0) + value;
  return { posts: items.length, metrics };
}
