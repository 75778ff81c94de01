import { type AdapterDeps } from '../adapter-deps.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { scanNewestFirst, type CandidatePage } from '../lookup/scan.ts';
import { type LookupCapability } from '../types.ts';
import { createTikTokApi, fetchStatus } from './tiktok.publish.ts';

interface VideoList {
  videos?: { id: string; title?: string; video_description?: string; create_time?: number; share_url?: string }[];
  cursor?: number;
  has_more?: boolean;
}

/** TikTok lists titles cut to 150 characters: compare that much. */
const TITLE_CHARS = 150;

/**
 * Through the attempt's `publish_id` first (`POST /v2/post/publish/status/fetch/`): complete means
 * found, FAILED means absent, anything else is still processing. Without one (the init's answer was
 * lost), the creator's `POST /v2/video/list/` (scope video.list, newest first, `cursor` in ms) can
 * find the post but never prove it absent.
 */
export function tiktokLookup(deps: AdapterDeps): LookupCapability {
  const api = createTikTokApi(deps);
  return {
    async find(input) {
      const token = input.credentials.accessToken;
      const username = input.credentials.extras?.username ?? '';
      if (input.handle) {
        const status = await fetchStatus(deps, token, input.handle);
        if (status.status === 'FAILED') return { status: 'absent' };
        // An inbox draft is delivered once it waits in the creator's inbox: its handle is its id.
        if (status.status === 'SEND_TO_USER_INBOX')
          return {
            status: 'found',
            result: { platformPostId: input.handle, url: `https://www.tiktok.com/@${username}` },
          };
        if (status.status !== 'PUBLISH_COMPLETE') return { status: 'pending' };
        const [postId] = status.postIds;
        return {
          status: 'found',
          result: postId
            ? { platformPostId: postId, url: `https://www.tiktok.com/@${username}/video/${postId}` }
            : { platformPostId: input.handle, url: `https://www.tiktok.com/@${username}` },
        };
      }
      const pageFrom = (cursor?: number) => async (): Promise<CandidatePage> => {
        const body = await api.post<VideoList>(
          '/v2/video/list/',
          token,
          { max_count: 20, ...(cursor === undefined ? {} : { cursor }) },
          { fields: 'id,title,video_description,create_time,share_url' },
        );
        const items = (body.videos ?? []).map((video) => ({
          id: video.id,
          text: video.video_description || video.title || '',
          createdAt: (video.create_time ?? 0) * 1000,
          url: video.share_url ?? `https://www.tiktok.com/@${username}/video/${video.id}`,
        }));
        return { items, next: body.has_more && body.cursor !== undefined ? pageFrom(body.cursor) : undefined };
      };
      // The Display API lists public videos only: a private post or one still processing is not in
      // it, so an empty answer proves nothing and only a match counts.
      const listed = await scanNewestFirst(
        'tiktok',
        input,
        pageFrom(),
        (ours, theirs) => theirs.length > 0 && ours.slice(0, TITLE_CHARS) === theirs.slice(0, TITLE_CHARS),
      );
      if (listed.status === 'found') return listed;
      throw new ProviderError({
        network: 'tiktok',
        kind: 'validation',
        networkCode: 'lookup_unverifiable',
        networkMessage:
          "TikTok gave no publish_id for the attempt and lists only public, processed videos, so the post's absence cannot be verified",
      });
    },
  };
}
