import { type SandboxContext } from '../context.ts';
import { isVideoFormat, sniffFormat } from '../media/sniff.ts';
import { numericId } from '../state/ids.ts';
import { usernameOf } from './tt-auth.ts';
import { int64 } from './tt-errors.ts';
import { TT_STORES, type TtPublish, type TtVideo } from './tt-records.ts';

const fail = (publish: TtPublish, reason: string) => {
  publish.status = 'FAILED';
  publish.failReason = reason;
};

/**
 * One status read: upload/download must be done and `processingPolls` reads must have passed; then
 * format checks (video MP4/MOV/WebM; photos JPEG/WebP) decide FAILED or PUBLISH_COMPLETE. A public
 * post's id appears one read after PUBLISH_COMPLETE (moderation); SELF_ONLY posts never get one.
 */
export function advancePublish(ctx: SandboxContext, publish: TtPublish): void {
  const ready = publish.polls >= ctx.processingPolls;
  publish.polls += 1;
  if (publish.status === 'PUBLISH_COMPLETE') {
    if (!publish.moderated) {
      publish.moderated = true;
      publish.postId = numericId(19, '7');
      const video: TtVideo = {
        id: publish.postId,
        openId: publish.openId,
        title: publish.title,
        kind: publish.kind,
        createTime: Math.floor(ctx.state.now() / 1000),
      };
      ctx.state.store<TtVideo>(TT_STORES.videos).set(video.id, video);
      record(ctx, publish);
    }
    return;
  }
  if (publish.status === 'FAILED' || publish.status === 'SEND_TO_USER_INBOX') return;
  let files: Buffer[];
  if (publish.source === 'FILE_UPLOAD') {
    const received = [...publish.uploaded.entries()].sort(([a], [b]) => a - b).map(([, chunk]) => chunk);
    if (received.reduce((sum, chunk) => sum + chunk.length, 0) < publish.videoSize) return;
    files = [Buffer.concat(received)];
  } else {
    if (publish.downloads.some((download) => !download.result)) return;
    const failed = publish.downloads.some((download) => !download.result?.ok);
    if (failed) return fail(publish, publish.kind === 'photo' ? 'photo_pull_failed' : 'video_pull_failed');
    files = publish.downloads.map((download) => (download.result?.ok ? download.result.bytes : Buffer.alloc(0)));
  }
  if (!ready) return;
  const formats = files.map(sniffFormat);
  const formatOk =
    publish.kind === 'video'
      ? formats.every(isVideoFormat)
      : formats.every((format) => format === 'jpeg' || format === 'webp');
  if (!formatOk) return fail(publish, 'file_format_check_failed');
  if (publish.inbox) {
    // The draft waits in the creator's inbox: no post exists until they finish it in the app.
    publish.status = 'SEND_TO_USER_INBOX';
    return record(ctx, publish);
  }
  publish.status = 'PUBLISH_COMPLETE';
  if (publish.moderated) record(ctx, publish);
}

function record(ctx: SandboxContext, publish: TtPublish): void {
  const username = usernameOf(publish.openId);
  ctx.state.recordPost({
    network: 'tiktok',
    id: publish.postId ?? publish.publishId,
    account: publish.openId,
    text: publish.title,
    media: publish.media,
    options: publish.inbox
      ? { post_mode: 'MEDIA_UPLOAD', source: publish.source, publish_id: publish.publishId }
      : {
          post_mode: 'DIRECT_POST',
          privacy_level: publish.privacyLevel,
          source: publish.source,
          publish_id: publish.publishId,
          ...publish.interactions,
        },
    url: publish.postId
      ? `https://www.tiktok.com/@${username}/${publish.kind}/${publish.postId}`
      : `https://www.tiktok.com/@${username}`,
    created_at: new Date(ctx.state.now()).toISOString(),
  });
}

/** Status body; `publicaly_available_post_id` (sic) holds int64 numbers, as TikTok sends them. */
export function statusBody(publish: TtPublish): Record<string, unknown> {
  const bytes = [...publish.uploaded.values()].reduce((sum, chunk) => sum + chunk.length, 0);
  const downloaded = publish.downloads.reduce(
    (sum, download) => sum + (download.result?.ok ? download.result.bytes.length : 0),
    0,
  );
  return {
    status: publish.status,
    fail_reason: publish.failReason,
    publicaly_available_post_id: publish.status === 'PUBLISH_COMPLETE' && publish.postId ? [int64(publish.postId)] : [],
    uploaded_bytes: bytes,
    downloaded_bytes: downloaded,
  };
}
