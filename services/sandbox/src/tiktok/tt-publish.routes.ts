import { json, raw, type NextFunction, type Request, type Response, type Router } from 'express';
import { markPostCreated } from '../http/outcome-faults.ts';
import { type SandboxContext } from '../context.ts';
import { startDownload } from '../facebook/graph-records.ts';
import { numericId, randomToken } from '../state/ids.ts';
import { requireTtToken, scopeNotAuthorized, ttCallerOf, ttHasScope, usernameOf } from './tt-auth.ts';
import { tiktokFaultRenderer, ttError, ttOk } from './tt-errors.ts';
import {
  MAX_CHUNK,
  MAX_LAST_CHUNK,
  MIN_CHUNK,
  PRIVACY_PRIVATE_ACCOUNT,
  PRIVACY_PUBLIC_ACCOUNT,
  TT_STORES,
  type TtPublish,
} from './tt-records.ts';
import { isVerified } from './tt-verified.ts';
import { advancePublish, statusBody } from './tt-status.ts';

const invalid = (res: Response, message: string) => ttError(res, 400, 'invalid_params', message);
const unverified = (res: Response, url: string) =>
  ttError(
    res,
    403,
    'url_ownership_unverified',
    `The domain or URL prefix of ${url} is not verified for this app; verify it or use FILE_UPLOAD.`,
  );

interface PostInfo {
  title?: unknown;
  description?: unknown;
  privacy_level?: unknown;
  disable_comment?: unknown;
  disable_duet?: unknown;
  disable_stitch?: unknown;
}

/** The interaction switches as sent, kept with the post so a test sees what the creator's post allows. */
const interactionsOf = (info: PostInfo) => ({
  disable_comment: info.disable_comment === true,
  disable_duet: info.disable_duet === true,
  disable_stitch: info.disable_stitch === true,
});

/** Checks the FILE_UPLOAD chunk rules of the media transfer guide (docs/networks.md §5.2 step 3). */
function chunkProblem(size: number, chunk: number, count: number): string | undefined {
  if (!Number.isInteger(size) || size <= 0 || !Number.isInteger(chunk) || !Number.isInteger(count))
    return 'video_size, chunk_size and total_chunk_count must be positive integers.';
  if (size < MIN_CHUNK)
    return chunk === size && count === 1
      ? undefined
      : 'Files under 5 MB are uploaded as one chunk with chunk_size = video_size.';
  if (chunk < MIN_CHUNK || chunk > MAX_CHUNK) return 'chunk_size must be between 5 MB and 64 MB.';
  if (count !== Math.floor(size / chunk) || count < 1 || count > 1000)
    return 'total_chunk_count must equal floor(video_size / chunk_size).';
  return undefined;
}

/** Each PUT must be one chunk of the declared plan: chunk_size bytes at a multiple of it, the last one to the end (at most 128 MB). */
function chunkShapeProblem(publish: TtPublish, first: number, last: number): string | undefined {
  const index = publish.chunkSize === 0 ? -1 : first / publish.chunkSize;
  if (!Number.isInteger(index) || index < 0 || index >= publish.chunkCount)
    return `Chunk at byte ${first} does not start a chunk of the declared plan (chunk_size ${publish.chunkSize}, ${publish.chunkCount} chunks).`;
  const length = last - first + 1;
  if (index < publish.chunkCount - 1)
    return length === publish.chunkSize
      ? undefined
      : `Chunk ${index + 1} must be exactly chunk_size (${publish.chunkSize}) bytes.`;
  if (last !== publish.videoSize - 1) return 'The last chunk must run to the end of the file.';
  return length <= MAX_LAST_CHUNK ? undefined : 'The last chunk may hold at most 128 MB.';
}

/** A BYOK token starting with this acts for a private creator with comments, duets and stitches off and a 60 s limit (sandbox convention). */
export const PRIVATE_CREATOR_PREFIX = 'private_';

/** What creator_info reports for the caller (content-posting-api-reference-query-creator-info). */
function creatorSettingsOf(token: string) {
  return token.startsWith(PRIVATE_CREATOR_PREFIX)
    ? {
        privacy_level_options: PRIVACY_PRIVATE_ACCOUNT,
        comment_disabled: true,
        duet_disabled: true,
        stitch_disabled: true,
        max_video_post_duration_sec: 60,
      }
    : {
        privacy_level_options: PRIVACY_PUBLIC_ACCOUNT,
        comment_disabled: false,
        duet_disabled: false,
        stitch_disabled: true,
        max_video_post_duration_sec: 300,
      };
}

/** Content Posting API (docs/networks.md §5.2): creator_info, video and photo init, upload, status. */
export function registerTikTokPublish(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['tiktok'], tiktokFaultRenderer());
  const auth = requireTtToken(ctx);
  const publishes = state.store<TtPublish>(TT_STORES.publishes);
  const body = json({ limit: '1mb' });

  const privacyProblem = (res: Response, level: unknown): boolean => {
    if (typeof level === 'string' && creatorSettingsOf(ttCallerOf(res).token).privacy_level_options.includes(level))
      return false;
    ttError(
      res,
      400,
      'privacy_level_option_mismatch',
      'privacy_level must be one of the creator_info privacy_level_options.',
    );
    return true;
  };

  const create = (
    req: Request,
    res: Response,
    fields: Omit<
      TtPublish,
      'openId' | 'status' | 'failReason' | 'polls' | 'postId' | 'moderated' | 'uploadToken' | 'uploaded'
    >,
  ) => {
    const publish: TtPublish = {
      ...fields,
      openId: ttCallerOf(res).openId,
      status: fields.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD',
      failReason: '',
      polls: 0,
      postId: undefined,
      moderated: fields.privacyLevel === 'SELF_ONLY',
      uploadToken: randomToken('', 12),
      uploaded: new Map(),
    };
    publishes.set(publish.publishId, publish);
    markPostCreated(res, 'tiktok');
    return publish;
  };

  // Direct posting and creator_info need video.publish (content-posting-api-reference-direct-post).
  const publishScope = (_req: Request, res: Response, next: NextFunction) =>
    ttHasScope(ttCallerOf(res), 'video.publish') ? next() : scopeNotAuthorized(res);

  router.post('/v2/post/publish/creator_info/query/', gate, auth, publishScope, (_req, res) => {
    const { openId, token } = ttCallerOf(res);
    ttOk(res, {
      creator_avatar_url: `https://p16-sign.tiktokcdn.com/${openId}.jpeg`,
      creator_username: usernameOf(openId),
      creator_nickname: `Sandbox ${openId.slice(-4)}`,
      ...creatorSettingsOf(token),
    });
  });

  /** A video's source_info (PULL_FROM_URL or FILE_UPLOAD chunks), for a direct post or an inbox upload. */
  const initVideo = (req: Request, res: Response, info: PostInfo, source: Record<string, unknown>, inbox: boolean) => {
    const title = typeof info.title === 'string' ? info.title : '';
    const settings = {
      kind: 'video' as const,
      title,
      privacyLevel: inbox ? '' : String(info.privacy_level),
      interactions: interactionsOf(info),
      inbox,
    };
    if (source.source === 'PULL_FROM_URL') {
      if (typeof source.video_url !== 'string') return invalid(res, 'source_info.video_url is required.');
      if (!isVerified(source.video_url, ctx.tiktokVerifiedPrefixes)) return unverified(res, source.video_url);
      const publish = create(req, res, {
        ...settings,
        publishId: `v_${inbox ? 'inbox' : 'pub'}_url~v2.${numericId(15)}`,
        source: 'PULL_FROM_URL',
        media: [{ url: source.video_url, kind: 'video' }],
        downloads: [startDownload(ctx.fetchMedia, source.video_url)],
        videoSize: 0,
        chunkSize: 0,
        chunkCount: 0,
      });
      return ttOk(res, { publish_id: publish.publishId });
    }
    if (source.source === 'FILE_UPLOAD') {
      const [size, chunk, count] = [
        Number(source.video_size),
        Number(source.chunk_size),
        Number(source.total_chunk_count),
      ];
      const problem = chunkProblem(size, chunk, count);
      if (problem) return invalid(res, problem);
      const publish = create(req, res, {
        ...settings,
        publishId: `v_${inbox ? 'inbox' : 'pub'}_file~v2-1.${numericId(15)}`,
        source: 'FILE_UPLOAD',
        media: [{ url: 'file_upload', kind: 'video' }],
        downloads: [],
        videoSize: size,
        chunkSize: chunk,
        chunkCount: count,
      });
      state.store<string>(TT_STORES.uploads).set(publish.uploadToken, publish.publishId);
      return ttOk(res, {
        publish_id: publish.publishId,
        upload_url: `${ctx.publicUrl}/tiktok/video/?upload_id=${numericId(12)}&upload_token=${publish.uploadToken}`,
      });
    }
    invalid(res, 'source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
  };

  router.post('/v2/post/publish/video/init/', body, gate, auth, publishScope, (req, res) => {
    const { post_info: info = {}, source_info: source = {} } = (req.body ?? {}) as {
      post_info?: PostInfo;
      source_info?: Record<string, unknown>;
    };
    if (privacyProblem(res, info.privacy_level)) return;
    const title = typeof info.title === 'string' ? info.title : '';
    if (title.length > 2200) return invalid(res, 'post_info.title must be at most 2200 characters.');
    initVideo(req, res, info, source, false);
  });

  // Upload to the creator's inbox (content-posting-api-reference-upload-video): source_info only,
  // scope video.upload; the creator gets a notification and finishes the post in the app.
  router.post('/v2/post/publish/inbox/video/init/', body, gate, auth, (req, res) => {
    if (!ttHasScope(ttCallerOf(res), 'video.upload')) return scopeNotAuthorized(res);
    const payload = (req.body ?? {}) as { post_info?: unknown; source_info?: Record<string, unknown> };
    if (payload.post_info !== undefined)
      return invalid(res, 'post_info is not accepted by an inbox upload: the creator sets it in TikTok.');
    initVideo(req, res, {}, payload.source_info ?? {}, true);
  });

  router.post('/v2/post/publish/content/init/', body, gate, auth, (req, res) => {
    const payload = (req.body ?? {}) as {
      media_type?: unknown;
      post_mode?: unknown;
      post_info?: PostInfo;
      source_info?: { source?: unknown; photo_images?: unknown; photo_cover_index?: unknown };
    };
    // DIRECT_POST publishes (video.publish); MEDIA_UPLOAD sends a draft to the inbox (video.upload).
    if (!ttHasScope(ttCallerOf(res), payload.post_mode === 'MEDIA_UPLOAD' ? 'video.upload' : 'video.publish'))
      return scopeNotAuthorized(res);
    const info = payload.post_info ?? {};
    if (payload.media_type !== 'PHOTO') return invalid(res, 'media_type must be PHOTO.');
    if (payload.post_mode !== 'DIRECT_POST' && payload.post_mode !== 'MEDIA_UPLOAD')
      return invalid(res, 'post_mode must be DIRECT_POST or MEDIA_UPLOAD.');
    if (payload.post_mode === 'DIRECT_POST' && privacyProblem(res, info.privacy_level)) return;
    if (payload.source_info?.source !== 'PULL_FROM_URL')
      return invalid(res, 'Photos can only be posted with source PULL_FROM_URL.');
    const images = payload.source_info.photo_images;
    if (
      !Array.isArray(images) ||
      images.length < 1 ||
      images.length > 35 ||
      !images.every((url) => typeof url === 'string')
    )
      return invalid(res, 'photo_images must hold 1 to 35 URLs.');
    const notVerified = (images as string[]).find((url) => !isVerified(url, ctx.tiktokVerifiedPrefixes));
    if (notVerified !== undefined) return unverified(res, notVerified);
    const title = typeof info.title === 'string' ? info.title : '';
    const description = typeof info.description === 'string' ? info.description : '';
    if (title.length > 90) return invalid(res, 'post_info.title must be at most 90 characters.');
    if (description.length > 4000) return invalid(res, 'post_info.description must be at most 4000 characters.');
    const publish = create(req, res, {
      publishId: `p_pub_url~v2.${numericId(15)}`,
      kind: 'photo',
      source: 'PULL_FROM_URL',
      title: description || title,
      privacyLevel: payload.post_mode === 'MEDIA_UPLOAD' ? '' : String(info.privacy_level),
      inbox: payload.post_mode === 'MEDIA_UPLOAD',
      interactions: interactionsOf(info),
      media: (images as string[]).map((url) => ({ url, kind: 'image' as const })),
      downloads: (images as string[]).map((url) => startDownload(ctx.fetchMedia, url)),
      videoSize: 0,
      chunkSize: 0,
      chunkCount: 0,
    });
    ttOk(res, { publish_id: publish.publishId });
  });

  // open-upload.tiktokapis.com/video/?upload_id=&upload_token=, folded in.
  router.put('/video/', raw({ type: () => true, limit: '200mb' }), (req, res) => {
    const publishId = state.store<string>(TT_STORES.uploads).get(String(req.query.upload_token ?? ''));
    const publish = publishId ? publishes.get(publishId) : undefined;
    if (!publish) return ttError(res, 404, 'invalid_params', 'Unknown upload_token.');
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!range || Number(range[3]) !== publish.videoSize || Number(range[2]) - Number(range[1]) + 1 !== bytes.length) {
      return ttError(
        res,
        400,
        'invalid_file_upload',
        'Content-Range does not match the chunk or the declared video_size.',
      );
    }
    const problem = chunkShapeProblem(publish, Number(range[1]), Number(range[2]));
    if (problem) return ttError(res, 400, 'invalid_file_upload', problem);
    publish.uploaded.set(Number(range[1]), bytes);
    const received = [...publish.uploaded.values()].reduce((sum, chunk) => sum + chunk.length, 0);
    res.status(received >= publish.videoSize ? 201 : 206).end();
  });

  router.post('/v2/post/publish/status/fetch/', body, gate, auth, (req, res) => {
    const publishId = (req.body as { publish_id?: unknown } | undefined)?.publish_id;
    const publish = typeof publishId === 'string' ? publishes.get(publishId) : undefined;
    if (!publish || publish.openId !== ttCallerOf(res).openId) return invalid(res, 'publish_id is invalid.');
    advancePublish(ctx, publish);
    ttOk(res, statusBody(publish));
  });
}
