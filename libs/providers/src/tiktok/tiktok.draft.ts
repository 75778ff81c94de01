import { createCall } from '../http/create-call.ts';
import { byteReaderOf, emptyMedia } from '../http/upload.ts';
import { type PublishInput, type PublishResult } from '../types.ts';
import {
  chunkPlan,
  createTikTokApi,
  initPhotoPost,
  isVerifiedUrl,
  uploadFile,
  waitPublished,
} from './tiktok.publish.ts';
import { type TikTokAdapterOptions } from './tiktok.adapter.ts';

/**
 * A draft (`post_type: draft`) goes to the creator's TikTok inbox (scope `video.upload`): a video
 * through `POST /v2/post/publish/inbox/video/init/` (source_info only), photos through
 * `content/init` with `post_mode: MEDIA_UPLOAD`. TikTok's processing ends at `SEND_TO_USER_INBOX`;
 * the creator then edits and posts it in the app, and no post id exists until they do. The result's
 * id is therefore the `publish_id` and its URL the creator's profile (docs/networks.md, "Post
 * kinds": a `published` TikTok draft means delivered to the inbox).
 */
export async function publishTikTokDraft(options: TikTokAdapterOptions, input: PublishInput): Promise<PublishResult> {
  const api = createTikTokApi(options);
  const token = input.credentials.accessToken;
  const username = input.credentials.extras?.username ?? '';
  const [first] = input.media;
  let publishId: string;
  if (first?.kind === 'video') {
    if (input.options?.source === 'FILE_UPLOAD' || !isVerifiedUrl(first.url, options.verifiedUrlPrefixes)) {
      const reader = await byteReaderOf(options, 'tiktok', first);
      if (reader.size === 0) throw emptyMedia('tiktok');
      const plan = chunkPlan(reader.size);
      const init = await createCall(() =>
        api.post<{ publish_id: string; upload_url: string }>('/v2/post/publish/inbox/video/init/', token, {
          source_info: { source: 'FILE_UPLOAD', video_size: reader.size, ...plan },
        }),
      );
      await uploadFile(options, init.upload_url, reader, plan);
      publishId = init.publish_id;
    } else {
      const init = await createCall(() =>
        api.post<{ publish_id: string }>('/v2/post/publish/inbox/video/init/', token, {
          source_info: { source: 'PULL_FROM_URL', video_url: first.url },
        }),
      );
      publishId = init.publish_id;
    }
  } else {
    publishId = await initPhotoPost(api, token, input, options.verifiedUrlPrefixes, { mode: 'MEDIA_UPLOAD' });
  }
  await input.onHandle?.(publishId);
  await waitPublished(options, token, publishId, false);
  return { platformPostId: publishId, url: `https://www.tiktok.com/@${username}` };
}
