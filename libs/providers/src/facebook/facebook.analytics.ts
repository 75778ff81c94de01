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

export interface GraphInsightsBody {
  data?: { name?: string; values?: { value?: unknown }[] }[];
}

export interface FbPostFields {
  id?: string;
  attachments?: { data?: { media_type?: string; target?: { id?: string } }[] };
}

/**
 * `post_engaged_users` was retired by Meta (Graph answers "invalid metric", docs/networks.md §2.5):
 * it is never requested and never reported as 0; every Facebook row says so in `warnings`.
 */
export const FACEBOOK_RETIRED_WARNING =
  'post_engaged_users is not reported: Meta retired this metric and the Graph API no longer serves it.';

/** Reactions come by type (`{"like":12,"love":3}`); the spec's key is their sum. */
export function sumByType(value: unknown): number | undefined {
  if (typeof value === 'number') return integerOf(value);
  if (typeof value !== 'object' || value === null) return undefined;
  return Object.values(value).reduce((sum: number, item) => sum + (integerOf(item) ?? 0), 0);
}

const valueOf = (body: GraphInsightsBody, name: string) =>
  body.data?.find((item) => item.name === name)?.values?.[0]?.value;

/**
 * Pure mapping into the spec's Facebook keys. `post` holds the post insights (`post_clicks`, and
 * `post_reactions_by_type_total` for non-video posts); `video` the video object's insights
 * (`total_video_reactions_by_type_total`) for video posts.
 */
export function mapFacebookInsights(post: GraphInsightsBody, video?: GraphInsightsBody): PostReading {
  const metrics: PostMetrics = {};
  const warnings: string[] = [FACEBOOK_RETIRED_WARNING];
  const clicks = integerOf(valueOf(post, 'post_clicks'));
  if (clicks === undefined) warnings.push('Facebook returned no post_clicks for this post.');
  else metrics.post_clicks = clicks;
  const reactions =
    video === undefined
      ? sumByType(valueOf(post, 'post_reactions_by_type_total'))
      : sumByType(valueOf(video, 'total_video_reactions_by_type_total'));
  if (reactions === undefined) warnings.push('Facebook returned no reactions for this post.');
  else metrics.post_reactions_by_type_total = reactions;
  return { status: 'read', metrics, warnings };
}

/** The video behind a post, when the post is a video (its insights live on the video object). */
export function videoIdOf(post: FbPostFields): string | undefined {
  const attachment = post.attachments?.data?.find((item) => item.media_type === 'video');
  return attachment?.target?.id;
}

/** Facebook Page post insights with the Page token (one token read per account and batch). */
export function createFacebookAnalytics(deps: AnalyticsDeps & { graphVersion: string }): PostAnalyticsCapability {
  const readOne = async (graph: GraphReadSession, token: string, id: string): Promise<PostReading> => {
    try {
      // A reel's id is its video's (facebook.reel.ts), not `{page}_{post}`: its reactions live on the
      // video, and a reel has no post insights (no post_clicks, which the reading then says).
      if (!id.includes('_'))
        return mapFacebookInsights(
          {},
          await graph.get<GraphInsightsBody>(
            `/${id}/video_insights`,
            { metric: 'total_video_reactions_by_type_total' },
            token,
          ),
        );
      const post = await graph.get<FbPostFields>(`/${id}`, { fields: 'id,attachments{media_type,target}' }, token);
      const videoId = videoIdOf(post);
      if (videoId === undefined)
        return mapFacebookInsights(
          await graph.get<GraphInsightsBody>(
            `/${id}/insights`,
            { metric: 'post_clicks,post_reactions_by_type_total' },
            token,
          ),
        );
      const clicks = await graph.get<GraphInsightsBody>(`/${id}/insights`, { metric: 'post_clicks' }, token);
      return mapFacebookInsights(
        clicks,
        await graph.get<GraphInsightsBody>(
          `/${videoId}/video_insights`,
          { metric: 'total_video_reactions_by_type_total' },
          token,
        ),
      );
    } catch (error) {
      if (isProviderError(error) && error.kind === 'validation')
        return {
          status: 'failed',
          message: `Facebook could not read the insights of post ${id}: ${error.networkMessage}`,
        };
      throw error;
    }
  };
  return {
    network: 'facebook',
    async read({ credentials, platformPostIds }): Promise<AnalyticsBatch> {
      const graph = new GraphReadSession(deps, deps.graphVersion);
      const pageId = credentials.extras?.page_id ?? platformPostIds[0]?.split('_')[0];
      const readings = new Map<string, PostReading>();
      if (pageId === undefined) return { readings };
      const page = await graph.get<{ access_token?: string }>(
        `/${pageId}`,
        { fields: 'id,access_token' },
        credentials.accessToken,
      );
      if (!page.access_token)
        throw new ProviderError({
          network: 'facebook',
          kind: 'permission_missing',
          networkMessage: `The token cannot read Page ${pageId}.`,
        });
      for (const id of platformPostIds) {
        if (graph.pauseUntil !== undefined) break;
        readings.set(id, await readOne(graph, page.access_token, id));
      }
      return { readings, pauseUntil: graph.pauseUntil };
    },
  };
}
