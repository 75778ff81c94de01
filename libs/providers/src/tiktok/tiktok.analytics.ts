import { type AdapterDeps } from '../adapter-deps.ts';
import {
  type AnalyticsDeps,
  chunk,
  integerOf,
  type AnalyticsBatch,
  type PostAnalyticsCapability,
  type PostReading,
} from '../analytics/analytics-types.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { type PostMetrics } from '../types.ts';
import { createTikTokApi, fetchStatus } from './tiktok.publish.ts';

/** `/v2/video/query/` takes up to 20 video ids (docs/networks.md §5.5). */
export const TIKTOK_BATCH = 20;
const KEYS = ['view_count', 'like_count', 'comment_count', 'share_count'] as const;

export interface TikTokVideosData {
  videos?: Record<string, unknown>[];
}

/**
 * Pure mapping of a video query answer: the spec's four counters per video id. A video TikTok did not
 * return (deleted, or not the caller's) is a per-post failure.
 */
export function mapTikTokVideos(data: TikTokVideosData, ids: readonly string[]): Map<string, PostReading> {
  const byId = new Map((data.videos ?? []).map((video) => [String(video.id), video]));
  const readings = new Map<string, PostReading>();
  for (const id of ids) {
    const video = byId.get(id);
    if (!video) {
      readings.set(id, {
        status: 'failed',
        message: `TikTok did not return video ${id} (deleted, or not visible to this account).`,
      });
      continue;
    }
    const metrics: PostMetrics = {};
    const warnings: string[] = [];
    for (const key of KEYS) {
      const value = integerOf(video[key]);
      if (value === undefined) warnings.push(`TikTok did not return ${key} for this video.`);
      else metrics[key] = value;
    }
    readings.set(id, { status: 'read', metrics, warnings });
  }
  return readings;
}

/**
 * TikTok video analytics. A stored publish id (`v_pub_...~...`: the post was private or still in
 * moderation when published; `v_inbox_...`/`p_pub_...` for a draft sent to the creator's inbox) is
 * resolved to the public video id through status/fetch first.
 */
export function createTikTokAnalytics(analyticsDeps: AnalyticsDeps): PostAnalyticsCapability {
  // The shared TikTok helpers take full adapter deps; analytics reads never poll, upload or download media.
  const deps: AdapterDeps = {
    ...analyticsDeps,
    polling: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 1 },
    handoffPolling: { initialDelayMs: 0, maxDelayMs: 0, maxAttempts: 1 },
    upload: { baseTimeoutMs: 0, minBytesPerSecond: 1, stepAttempts: 1 },
    fetchMedia: (network) =>
      Promise.reject(
        new ProviderError({ network, kind: 'validation', networkMessage: 'Analytics reads never download media.' }),
      ),
  };
  const api = createTikTokApi(deps);
  return {
    network: 'tiktok',
    async read({ credentials, platformPostIds }): Promise<AnalyticsBatch> {
      const token = credentials.accessToken;
      const readings = new Map<string, PostReading>();
      const videoIdOf = new Map<string, string>();
      for (const id of platformPostIds) {
        if (!id.includes('~')) {
          videoIdOf.set(id, id);
          continue;
        }
        const status = await fetchStatus(deps, token, id);
        const [videoId] = status.postIds;
        if (videoId) videoIdOf.set(id, videoId);
        else
          readings.set(id, {
            status: 'failed',
            message:
              status.status === 'SEND_TO_USER_INBOX'
                ? "TikTok gives no analytics for a draft: it waits in the creator's inbox until they post it."
                : 'TikTok gives no analytics for this post yet: it is private or still in moderation.',
          });
      }
      const pairs = [...videoIdOf.entries()];
      for (const group of chunk(pairs, TIKTOK_BATCH)) {
        const videoIds = group.map(([, videoId]) => videoId);
        const data = await api.post<TikTokVideosData>(
          '/v2/video/query/',
          token,
          { filters: { video_ids: videoIds } },
          { fields: `id,${KEYS.join(',')}` },
        );
        const mapped = mapTikTokVideos(data, videoIds);
        for (const [postId, videoId] of group) readings.set(postId, mapped.get(videoId)!);
      }
      return { readings };
    },
  };
}
