import { json, raw, type Request, type Response, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { parseMultipart } from '../http/multipart.ts';
import { sniffFormat } from '../media/sniff.ts';
import { snowflakeId } from '../state/ids.ts';
import { requireXScopes, requireXToken, xCallerOf } from './x-auth.ts';
import { invalidRequest, problem, xFaultRenderer } from './x-errors.ts';
import { sendRateHeaders } from './x-limits.ts';
import { mediaKey, X_STORES, type XMedia } from './x-records.ts';

const CATEGORIES = ['tweet_image', 'tweet_video', 'tweet_gif', 'dm_image', 'dm_video', 'dm_gif', 'subtitles'];
/**
 * The `media_type` values X's v2 upload accepts (docs.x.com x-api/media "Media upload" initialize:
 * the enum of the request body); anything else is a 400, as is a type the category cannot hold.
 */
const MEDIA_TYPES = [
  'video/mp4',
  'video/webm',
  'video/mp2t',
  'video/quicktime',
  'text/srt',
  'text/vtt',
  'image/jpeg',
  'image/gif',
  'image/bmp',
  'image/png',
  'image/webp',
  'image/pjpeg',
  'image/tiff',
  'model/gltf-binary',
  'model/vnd.usdz+zip',
];
const fitsCategory = (mediaType: string, category: string) =>
  category.endsWith('_gif')
    ? mediaType === 'image/gif'
    : category.endsWith('_image')
      ? mediaType.startsWith('image/')
      : category.endsWith('_video')
        ? mediaType.startsWith('video/')
        : category === 'subtitles'
          ? mediaType.startsWith('text/')
          : true;
const IMAGE_FORMATS = new Set(['jpeg', 'png', 'gif', 'webp']);
const EXPIRES_AFTER = 86400;
const MAX_ALT_TEXT = 1000;

/** X API v2 media upload (docs/networks.md §3.2): initialize / append / finalize / STATUS, and one-shot upload. */
export function registerXMedia(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['x'], xFaultRenderer());
  const auth = requireXToken(ctx);
  // Media upload needs media.write (docs.x.com x-api/media/quickstart; makerprism/ocaml-social-sdk#25: 403 without it).
  const media = requireXScopes('media.write');
  const store = state.store<XMedia>(X_STORES.media);
  const multipart = raw({ type: 'multipart/form-data', limit: '600mb' });

  const fields = (req: Request) => {
    const parts = Buffer.isBuffer(req.body) ? parseMultipart(req.body, req.headers['content-type']) : [];
    const text = (name: string) => parts.find((part) => part.name === name)?.data.toString('utf8');
    const media = parts.find((part) => part.name === 'media')?.data;
    return { text, media };
  };

  /** Validates the assembled bytes; images are ready at once, videos process over a few polls. */
  const finish = (media: XMedia): void => {
    const bytes = Buffer.concat([...media.segments.entries()].sort(([a], [b]) => a - b).map(([, chunk]) => chunk));
    const format = sniffFormat(bytes);
    media.finalized = true;
    if (media.category.endsWith('video')) {
      media.state = 'pending';
      if (format !== 'mp4' && format !== 'mov')
        media.error = 'Unsupported video format: the file is not H.264/AAC MP4 or MOV.';
    } else if (!IMAGE_FORMATS.has(format)) {
      media.state = 'failed';
      media.error = 'Unsupported image format.';
    }
  };

  const answer = (media: XMedia) => ({
    id: media.id,
    media_key: mediaKey(media),
    size: media.totalBytes,
    expires_after_secs: EXPIRES_AFTER,
    ...(media.state
      ? {
          processing_info: {
            state: media.state,
            ...(media.state === 'failed'
              ? { error: { code: 1, name: 'InvalidMedia', message: media.error } }
              : { check_after_secs: 1 }),
          },
        }
      : {}),
  });

  const mine = (req: Request, res: Response): XMedia | undefined => {
    const media = store.get(String(req.params.id ?? req.query.media_id));
    if (media && media.userId === xCallerOf(res).userId) return media;
    problem(res, 404, 'Not Found Error', 'Could not find media.', 'https://api.x.com/2/problems/resource-not-found');
    return undefined;
  };

  // Alt text of an uploaded image (docs.x.com x-api/media "Create Media metadata"): up to 1,000 characters.
  router.post('/2/media/metadata', json(), gate, auth, media, (req, res) => {
    const body = (req.body ?? {}) as { id?: unknown; metadata?: { alt_text?: { text?: unknown } } };
    const text = body.metadata?.alt_text?.text;
    if (typeof body.id !== 'string') return invalidRequest(res, 'id', 'id is required.');
    if (typeof text !== 'string' || text === '')
      return invalidRequest(res, 'metadata.alt_text.text', 'metadata.alt_text.text is required.');
    if ([...text].length > MAX_ALT_TEXT)
      return invalidRequest(res, 'metadata.alt_text.text', `alt text is limited to ${MAX_ALT_TEXT} characters.`);
    const item = store.get(body.id);
    if (!item || item.userId !== xCallerOf(res).userId)
      return problem(
        res,
        404,
        'Not Found Error',
        'Could not find media.',
        'https://api.x.com/2/problems/resource-not-found',
      );
    if (!item.category.endsWith('image') && !item.category.endsWith('gif'))
      return invalidRequest(res, 'id', 'Alt text is supported for images and GIFs only.');
    item.altText = text;
    res.json({ data: { id: item.id, associated_metadata: { alt_text: { text } } } });
  });

  router.post('/2/media/upload/initialize', json(), gate, auth, media, (req, res) => {
    const body = (req.body ?? {}) as { media_type?: unknown; total_bytes?: unknown; media_category?: unknown };
    if (typeof body.media_type !== 'string') return invalidRequest(res, 'media_type', 'media_type is required.');
    if (typeof body.total_bytes !== 'number' || body.total_bytes <= 0)
      return invalidRequest(res, 'total_bytes', 'total_bytes must be a positive integer.');
    if (typeof body.media_category !== 'string' || !CATEGORIES.includes(body.media_category))
      return invalidRequest(res, 'media_category', 'media_category is invalid.');
    if (!MEDIA_TYPES.includes(body.media_type))
      return invalidRequest(res, 'media_type', `media_type must be one of ${MEDIA_TYPES.join(', ')}.`);
    if (!fitsCategory(body.media_type, body.media_category))
      return invalidRequest(
        res,
        'media_type',
        `media_type ${body.media_type} does not match media_category ${body.media_category}.`,
      );
    const media: XMedia = {
      id: snowflakeId(state.now()),
      userId: xCallerOf(res).userId,
      mediaType: body.media_type,
      category: body.media_category,
      totalBytes: body.total_bytes,
      segments: new Map(),
      finalized: false,
      polls: 0,
      state: undefined,
      error: undefined,
    };
    store.set(media.id, media);
    sendRateHeaders(state, res, 'media.initialize', media.userId, 1875);
    res.json({ data: { id: media.id, media_key: mediaKey(media), expires_after_secs: 1295999 } });
  });

  router.post('/2/media/upload/:id/append', multipart, gate, auth, media, (req, res) => {
    const media = mine(req, res);
    if (!media) return;
    const { text, media: chunk } = fields(req);
    const index = Number(text('segment_index'));
    if (!chunk) return invalidRequest(res, 'media', 'media is required.');
    if (!Number.isInteger(index) || index < 0 || index > 999)
      return invalidRequest(res, 'segment_index', 'segment_index must be 0..999.');
    if (media.finalized) return invalidRequest(res, 'media_id', 'The media was already finalized.');
    media.segments.set(index, chunk);
    sendRateHeaders(state, res, 'media.append', media.userId, 1875);
    res.json({ data: { expires_at: Math.floor(state.now() / 1000) + EXPIRES_AFTER } });
  });

  router.post('/2/media/upload/:id/finalize', gate, auth, media, (req, res) => {
    const media = mine(req, res);
    if (!media) return;
    const size = [...media.segments.values()].reduce((sum, chunk) => sum + chunk.length, 0);
    if (size !== media.totalBytes)
      return invalidRequest(res, 'media_id', 'Segments do not add up to provided total file size.');
    finish(media);
    sendRateHeaders(state, res, 'media.finalize', media.userId, 1875);
    res.json({ data: answer(media) });
  });

  router.get('/2/media/upload', gate, auth, media, (req, res) => {
    if (req.query.command !== 'STATUS') return invalidRequest(res, 'command', 'command must be STATUS.');
    const media = mine(req, res);
    if (!media) return;
    if (media.state === 'pending' || media.state === 'in_progress') {
      if (media.polls >= ctx.processingPolls) media.state = media.error ? 'failed' : 'succeeded';
      else media.state = 'in_progress';
      media.polls += 1;
    }
    sendRateHeaders(state, res, 'media.status', media.userId, 1000);
    res.json({
      data: {
        ...answer(media),
        ...(media.state === 'in_progress'
          ? { processing_info: { state: 'in_progress', check_after_secs: 1, progress_percent: 50 } }
          : {}),
      },
    });
  });

  // One-shot upload for images and small GIFs (multipart `media` + `media_category`).
  router.post('/2/media/upload', multipart, gate, auth, media, (req, res) => {
    const { text, media: bytes } = fields(req);
    const category = text('media_category') ?? '';
    if (!bytes) return invalidRequest(res, 'media', 'media is required.');
    if (!CATEGORIES.includes(category)) return invalidRequest(res, 'media_category', 'media_category is invalid.');
    const media: XMedia = {
      id: snowflakeId(state.now()),
      userId: xCallerOf(res).userId,
      mediaType: text('media_type') ?? 'image/jpeg',
      category,
      totalBytes: bytes.length,
      segments: new Map([[0, bytes]]),
      finalized: false,
      polls: 0,
      state: undefined,
      error: undefined,
    };
    store.set(media.id, media);
    finish(media);
    sendRateHeaders(state, res, 'media.upload', media.userId, 500);
    res.json({ data: answer(media) });
  });
}
