import { type MetricValue } from '../state/sandbox-state.ts';
import { type IgMedia } from './graph-records.ts';

/** Retired everywhere: asking for one fails the whole call with (#100) (docs/networks.md §1.5). */
const IG_DEPRECATED = [
  'impressions',
  'plays',
  'clips_replays_count',
  'ig_reels_aggregated_all_plays_count',
  'video_views',
  'engagement',
];

/** Instagram media insights by product type (docs/networks.md §1.5); carousels are FEED media. */
export const IG_METRICS_BY_PRODUCT: Record<string, readonly string[]> = {
  FEED: [
    'comments',
    'follows',
    'likes',
    'profile_activity',
    'profile_visits',
    'reach',
    'saved',
    'shares',
    'total_interactions',
    'views',
  ],
  REELS: [
    'comments',
    'likes',
    'reach',
    'saved',
    'shares',
    'total_interactions',
    'views',
    'ig_reels_avg_watch_time',
    'ig_reels_video_view_total_time',
  ],
  STORY: [
    'follows',
    'navigation',
    'profile_activity',
    'profile_visits',
    'reach',
    'replies',
    'shares',
    'total_interactions',
    'views',
  ],
};

/**
 * Page post metrics Graph still serves. `post_engaged_users` and the `post_impressions*` family were
 * retired (docs/networks.md §2.5): Graph answers them "(#100) ... valid insights metric".
 */
const FB_POST_METRICS = [
  'post_clicks',
  'post_clicks_by_type',
  'post_reactions_by_type_total',
  'post_total_media_view_unique',
  'post_media_view',
];
const FB_VIDEO_METRICS = ['total_video_views', 'total_video_reactions_by_type_total', 'total_video_avg_time_watched'];

/** Below this reach Graph refuses media insights with "(#10) Not enough viewers". */
export const IG_MIN_REACH = 5;

const TITLES: Record<string, string> = {
  views: 'Views',
  reach: 'Accounts reached',
  likes: 'Likes',
  comments: 'Comments',
  shares: 'Shares',
  saved: 'Saved',
  total_interactions: 'Post interactions',
  post_clicks: 'Post Clicks',
  post_reactions_by_type_total: 'Lifetime Total post Reactions by Type.',
  total_video_reactions_by_type_total: 'Lifetime Reactions by type',
  total_video_views: 'Lifetime Total Video Views',
};

export type InsightsAnswer = { data: object[] } | { error: { message: string; code: number; error_subcode?: number } };

const numberOf = (value: MetricValue | undefined) => (typeof value === 'number' ? value : 0);

function item(objectId: string, name: string, value: MetricValue) {
  return {
    name,
    period: 'lifetime',
    values: [{ value }],
    title: TITLES[name] ?? name,
    description: `Lifetime: ${TITLES[name] ?? name}`,
    id: `${objectId}/insights/${name}/lifetime`,
  };
}

/** Reactions by type as Graph gives them; a plain number set through the control API counts as likes. */
const byType = (value: MetricValue | undefined): MetricValue =>
  typeof value === 'object' ? value : numberOf(value) === 0 ? {} : { like: numberOf(value) };

/** `GET /{ig-media-id}/insights`: the product type's rules, then "not enough viewers", then values. */
export function igInsights(media: IgMedia, metrics: string[], stored: Record<string, MetricValue>): InsightsAnswer {
  const allowed = IG_METRICS_BY_PRODUCT[media.productType] ?? IG_METRICS_BY_PRODUCT.FEED!;
  const invalid = metrics.find((metric) => IG_DEPRECATED.includes(metric) || !allowed.includes(metric));
  if (invalid !== undefined) {
    return {
      error: {
        message: `(#100) metric[${metrics.indexOf(invalid)}] must be one of the following values: ${allowed.join(', ')}`,
        code: 100,
      },
    };
  }
  if (numberOf(stored.reach) < IG_MIN_REACH)
    return { error: { message: '(#10) Not enough viewers for the media to show insights', code: 10 } };
  const total = numberOf(stored.likes) + numberOf(stored.comments) + numberOf(stored.shares) + numberOf(stored.saved);
  return {
    data: metrics.map((name) =>
      item(
        media.id,
        name,
        name === 'total_interactions' && stored.total_interactions === undefined ? total : numberOf(stored[name]),
      ),
    ),
  };
}

function invalidMetric(): InsightsAnswer {
  return { error: { message: '(#100) The value must be a valid insights metric', code: 100 } };
}

/** `GET /{page-post-id}/insights`: only metrics Meta still serves. */
export function fbPostInsights(postId: string, metrics: string[], stored: Record<string, MetricValue>): InsightsAnswer {
  if (metrics.some((metric) => !FB_POST_METRICS.includes(metric))) return invalidMetric();
  return {
    data: metrics.map((name) =>
      item(
        postId,
        name,
        name === 'post_reactions_by_type_total'
          ? byType(stored[name])
          : name === 'post_clicks_by_type'
            ? numberOf(stored.post_clicks) === 0
              ? {}
              : { 'other clicks': numberOf(stored.post_clicks) }
            : numberOf(stored[name]),
      ),
    ),
  };
}

/** `GET /{video-id}/video_insights`: a video post's reactions and views live on the video object. */
export function fbVideoInsights(
  videoId: string,
  metrics: string[],
  stored: Record<string, MetricValue>,
): InsightsAnswer {
  if (metrics.some((metric) => !FB_VIDEO_METRICS.includes(metric))) return invalidMetric();
  return {
    data: metrics.map((name) =>
      item(
        videoId,
        name,
        name === 'total_video_reactions_by_type_total'
          ? byType(stored.post_reactions_by_type_total)
          : name === 'total_video_views'
            ? numberOf(stored.views)
            : numberOf(stored[name]),
      ),
    ),
  };
}
