import { graphPages, graphTimeMs } from '../graph/graph-timeline.ts';
import { type GraphApi } from '../graph/graph-api.ts';
import { LOOKUP_SKEW_MS, scanNewestFirst } from '../lookup/scan.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { type Credentials, type LookupCapability } from '../types.ts';
import { classifyVideoStatus } from './facebook.classify.ts';
import { readReelStatus, reelIdOf, reelResult, reelStage } from './facebook.reel.ts';

interface PublishedPost {
  id: string;
  message?: string;
  created_time?: string;
  permalink_url?: string;
}

/**
 * A reel attempt is asked about through its video (`reel:<id>` handle, facebook.reel.ts). A video attempt is asked about through its video id (`GET /{video-id}?fields=status`: ready means
 * published, still processing means ask again later); any other attempt is looked for in the Page's
 * `GET /{page-id}/published_posts` (Page token, newest first, `since` in unix seconds).
 */
export function facebookLookup(
  api: GraphApi,
  pageToken: (credentials: Credentials, pageId: string) => Promise<string>,
): LookupCapability {
  return {
    async find(input) {
      const pageId = input.credentials.extras?.page_id;
      if (!pageId)
        throw new ProviderError({
          network: 'facebook',
          kind: 'validation',
          networkCode: 'missing_extra',
          networkMessage: 'The Facebook account has no page_id.',
        });
      const token = await pageToken(input.credentials, pageId);
      const reelId = reelIdOf(input.handle);
      if (reelId !== undefined) {
        const stage = reelStage(await readReelStatus(api, reelId, token));
        if (stage === 'published') return { status: 'found', result: reelResult(reelId) };
        // Finished and still processing: ask again. Never finished (or refused): no reel exists, and
        // the next attempt, given the handle back, finishes that same video.
        return stage === 'publishing' ? { status: 'pending' } : { status: 'absent' };
      }
      if (input.handle) {
        const video = await api.get<{ status?: { video_status?: string }; permalink_url?: string }>(
          `/${input.handle}`,
          { fields: 'status,permalink_url' },
          token,
        );
        if (classifyVideoStatus(video.status)) return { status: 'absent' };
        if (video.status?.video_status !== 'ready') return { status: 'pending' };
        const url = video.permalink_url
          ? new URL(video.permalink_url, 'https://www.facebook.com').toString()
          : `https://www.facebook.com/${pageId}/videos/${input.handle}/`;
        return { status: 'found', result: { platformPostId: `${pageId}_${input.handle}`, url } };
      }
      const since = Math.floor((input.since.getTime() - LOOKUP_SKEW_MS) / 1000);
      return scanNewestFirst(
        'facebook',
        input,
        graphPages<PublishedPost>(
          api,
          `/${pageId}/published_posts`,
          { fields: 'id,message,created_time,permalink_url', since },
          token,
          (post) => ({
            id: post.id,
            text: post.message ?? '',
            createdAt: graphTimeMs(post.created_time),
            url: post.permalink_url
              ? new URL(post.permalink_url, 'https://www.facebook.com').toString()
              : `https://www.facebook.com/${post.id.replace('_', '/posts/')}`,
          }),
        ),
      );
    },
  };
}
