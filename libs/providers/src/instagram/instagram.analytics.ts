import {
  type AnalyticsDeps,
  integerOf,
  type AnalyticsBatch,
  type PostAnalyticsCapability,
  type PostReading,
} from '../analytics/analytics-types.ts';
import { isProviderError, ProviderError } from '../errors/provider-error.ts';
import { GraphReadSession } from '../graph/graph-usage.ts';
import { type PostMetrics } from '../types.ts';

export type IgProductType = 'FEED' | 'REELS' | 'STORY' | 'AD';

export interface IgMediaFields {
  id?: string;
  media_type?: string;
  media_product_type?: string;
  like_count?: unknown;
  comments_count?: unknown;
}

export interface IgInsightsBody {
  data?: { name?: string; values?: { value?: unknown }[] }[];
}

const COUNTERS = ['likes', 'comments', 'shares', 'saved'] as const;

/**
 * The spec keys Graph serves per media product type (docs/networks.md §1.5). Asking for one metric the
 * type does not have fails the whole call with (#100), so the request is built from this table.
 * Stories have no likes, comments or saves.
 */
export const IG_METRICS_BY_PRODUCT: Record<IgProductType, readonly string[]> = {
  FEED: ['views', 'reach', 'likes', 'comments', 'shares', 'saved'],
  REELS: ['views', 'reach', 'likes', 'comments', 'shares', 'saved'],
  STORY: ['views', 'reach', 'shares'],
  AD: ['views', 'reach', 'likes', 'comments', 'shares', 'saved'],
};

export function productTypeOf(media: IgMediaFields): IgProductType {
  const type = (media.media_product_type ?? '').toUpperCase();
  return type === 'REELS' || type === 'STORY' || type === 'AD' ? type : 'FEED';
}

const label = (type: IgProductType) => ({ FEED: 'feed posts', REELS: 'reels', STORY: 'stories', AD: 'ads' })[type];

/**
 * `total_interactions` is the spec's sum of likes, comments, shares and saves: set only when all four
 * were read, else left out with a warning.
 */
function withTotal(metrics: PostMetrics, warnings: string[]): void {
  const parts = COUNTERS.map((key) => metrics[key]);
  if (parts.every((value) => value !== undefined))
    metrics.total_interactions = parts.reduce((sum: number, value) => sum + value!, 0);
  else
    warnings.push(
      'total_interactions is not reported: it needs likes, comments, shares and saves, and not all were available.',
    );
}

/** Pure mapping of media fields and an insights answer into the spec's Instagram keys. */
export function mapIgInsights(media: IgMediaFields, body: IgInsightsBody): PostReading {
  const type = productTypeOf(media);
  const requested = IG_METRICS_BY_PRODUCT[type];
  const metrics: PostMetrics = {};
  const warnings: string[] = [];
  const values = new Map((body.data ?? []).map((item) => [item.name, integerOf(item.values?.[0]?.value)]));
  for (const key of requested) {
    const value = values.get(key);
    if (value === undefined)
      warnings.push(`Instagram returned no ${key} for this post (insights can lag up to 48 hours).`);
    else metrics[key] = value;
  }
  const unavailable = COUNTERS.filter((key) => !requested.includes(key));
  if (unavailable.length > 0) warnings.push(`Instagram has no ${unavailable.join(', ')} for ${label(type)}.`);
  withTotal(metrics, warnings);
  return { status: 'read', metrics, warnings };
}

/**
 * Graph's "(#10) Not enough viewers for the media to show insights": a low-reach post, not a lost
 * permission. The media's own like and comment counters are still real.
 */
export function mapNotEnoughViewers(media: IgMediaFields): PostReading {
  const metrics: PostMetrics = {};
  const likes = integerOf(media.like_count);
  const comments = integerOf(media.comments_count);
  if (likes !== undefined) metrics.likes = likes;
  if (comments !== undefined) metrics.comments = comments;
  const warnings = [
    'Instagram: not enough viewers for the media to show insights yet; views, reach, shares and saves are unavailable.',
  ];
  withTotal(metrics, warnings);
  return { status: 'read', metrics, warnings };
}

export const isNotEnoughViewers = (error: unknown): boolean =>
  isProviderError(error) &&
  (error.networkCode === '10' || error.networkCode?.startsWith('10/') === true) &&
  /not enough viewers/i.test(error.networkMessage);

/** Instagram media insights, one media at a time (Graph has no batch insights for media). */
export function createInstagramAnalytics(deps: AnalyticsDeps & { graphVersion: string }): PostAnalyticsCapability {
  const readOne = async (graph: GraphReadSession, token: string, id: string): Promise<PostReading> => {
    let media: IgMediaFields;
    try {
      media = await graph.get<IgMediaFields>(
        `/${id}`,
        { fields: 'id,media_type,media_product_type,like_count,comments_count' },
        token,
      );
    } catch (error) {
      if (isProviderError(error) && error.kind === 'validation')
        return { status: 'failed', message: `Instagram could not read media ${id}: ${error.networkMessage}` };
      throw error;
    }
    const metrics = IG_METRICS_BY_PRODUCT[productTypeOf(media)];
    try {
      return mapIgInsights(
        media,
        await graph.get<IgInsightsBody>(`/${id}/insights`, { metric: metrics.join(',') }, token),
      );
    } catch (error) {
      if (isNotEnoughViewers(error)) return mapNotEnoughViewers(media);
      if (error instanceof ProviderError && error.kind === 'validation')
        return { status: 'failed', message: `Instagram refused the insights of media ${id}: ${error.networkMessage}` };
      throw error;
    }
  };
  return {
    network: 'instagram',
    async read({ credentials, platformPostIds }): Promise<AnalyticsBatch> {
      // Graph has no batch insights for media: one media at a time, stopping when the usage headers say so.
      const graph = new GraphReadSession(deps, deps.graphVersion);
      const readings = new Map<string, PostReading>();
      for (const id of platformPostIds) {
        readings.set(id, await readOne(graph, credentials.accessToken, id));
        if (graph.pauseUntil !== undefined) break;
      }
      return { readings, pauseUntil: graph.pauseUntil };
    },
  };
}
