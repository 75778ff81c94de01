import {
  type AnalyticsDeps,
  chunk,
  integerOf,
  type AnalyticsBatch,
  type PostAnalyticsCapability,
  type PostReading,
} from '../analytics/analytics-types.ts';
import { asNumber } from '../http/network-response.ts';
import { normalizeHeaders } from '../http/network-response.ts';
import { type PostMetrics } from '../types.ts';

/** GET /2/tweets takes up to 100 ids (docs/networks.md §3.5). */
export const X_BATCH = 100;

const PUBLIC_KEYS = [
  'impression_count',
  'like_count',
  'retweet_count',
  'reply_count',
  'quote_count',
  'bookmark_count',
] as const;
/** Owner-only counters (user context, posts up to 30 days old): added when X returns them. */
const PRIVATE_KEYS = ['url_link_clicks', 'user_profile_clicks', 'engagements'] as const;

interface XTweet {
  id?: string;
  public_metrics?: Record<string, unknown>;
  non_public_metrics?: Record<string, unknown>;
  organic_metrics?: Record<string, unknown>;
}
export interface XTweetsBody {
  data?: XTweet[];
  errors?: { resource_id?: string; value?: string; detail?: string; title?: string; type?: string }[];
}

/**
 * Pure mapping of a `GET /2/tweets?ids=...` answer. `public_metrics` give the spec's six keys;
 * `non_public_metrics` / `organic_metrics` add the owner-only counters when X returned them (a post
 * older than 30 days or a token without them just lacks the fields: those keys are optional). A
 * missing public key is a warning, never a 0.
 */
export function mapXTweets(body: XTweetsBody, ids: readonly string[]): Map<string, PostReading> {
  const readings = new Map<string, PostReading>();
  const byId = new Map((body.data ?? []).filter((tweet) => tweet.id !== undefined).map((tweet) => [tweet.id!, tweet]));
  for (const id of ids) {
    const tweet = byId.get(id);
    if (!tweet) {
      const error = (body.errors ?? []).find((item) => item.resource_id === id || item.value === id);
      readings.set(id, { status: 'failed', message: error?.detail ?? `X did not return post ${id}.` });
      continue;
    }
    const metrics: PostMetrics = {};
    const warnings: string[] = [];
    for (const key of PUBLIC_KEYS) {
      const value = integerOf(tweet.public_metrics?.[key]);
      if (value === undefined) warnings.push(`X did not return ${key} for this post.`);
      else metrics[key] = value;
    }
    for (const key of PRIVATE_KEYS) {
      const value = integerOf(tweet.non_public_metrics?.[key]) ?? integerOf(tweet.organic_metrics?.[key]);
      if (value !== undefined) metrics[key] = value;
    }
    readings.set(id, { status: 'read', metrics, warnings });
  }
  return readings;
}

/** When the 15-minute window is used up, the reset time (epoch ms) from `x-rate-limit-*`. */
export function xPauseUntil(headers: Record<string, string | undefined>): number | undefined {
  const remaining = asNumber(headers['x-rate-limit-remaining']);
  const reset = asNumber(headers['x-rate-limit-reset']);
  return remaining === 0 && reset !== undefined ? reset * 1000 : undefined;
}

/** X post analytics: batched lookups with public and (when allowed) owner-only metrics. */
export function createXAnalytics(deps: AnalyticsDeps): PostAnalyticsCapability {
  return {
    network: 'x',
    async read({ credentials, platformPostIds }): Promise<AnalyticsBatch> {
      const readings = new Map<string, PostReading>();
      let pauseUntil: number | undefined;
      for (const ids of chunk(platformPostIds, X_BATCH)) {
        const response = await deps.client.request<XTweetsBody>({
          method: 'GET',
          url: '/2/tweets',
          params: {
            ids: ids.join(','),
            'tweet.fields': 'public_metrics,non_public_metrics,organic_metrics,created_at',
          },
          headers: { Authorization: `Bearer ${credentials.accessToken}` },
        });
        for (const [id, reading] of mapXTweets(response.data, ids)) readings.set(id, reading);
        pauseUntil = xPauseUntil(normalizeHeaders(response.headers));
        if (pauseUntil !== undefined) break;
      }
      return { readings, pauseUntil };
    },
  };
}
