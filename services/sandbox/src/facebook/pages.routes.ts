import { type Request, type Response, type Router } from 'express';
import { markPostCreated } from '../http/outcome-faults.ts';
import { type SandboxContext } from '../context.ts';
import { numericId } from '../state/ids.ts';
import { type MediaRef } from '../state/types.ts';
import { bucHeaders, callerOf, graphParams, idOf, requireGraphToken } from './graph-auth.ts';
import { graphError, invalidParameter, renderGraphFault } from './graph-errors.ts';
import { STORES, startDownload, type FbPhoto, type FbPost, type FbVideo } from './graph-records.ts';

const PHOTO_FORMATS = new Set(['jpeg', 'png', 'gif', 'webp']);
const MAX_PHOTO_BYTES = 4 * 1024 * 1024;
/** The sandbox's bound on a photo's `alt_text_custom` (Graph publishes none; the API's own bound is the same). */
const MAX_ALT_TEXT = 1000;

/** Facebook Pages publishing (docs/networks.md §2.2): feed, photos, videos, with `{page}_{post}` ids. */
export function registerPages(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['facebook'], renderGraphFault);
  const auth = requireGraphToken(ctx);
  const buc = bucHeaders('pages');
  const posts = state.store<FbPost>(STORES.fbPosts);
  const photos = state.store<FbPhoto>(STORES.fbPhotos);
  const videos = state.store<FbVideo>(STORES.fbVideos);
  const lastMessage = state.store<string>(STORES.fbLastMessage);

  /** Only a Page token of this Page may publish; BYOK tokens are taken on trust. */
  const mayPublish = (req: Request, res: Response): boolean => {
    const caller = callerOf(res);
    const pageId = idOf(req);
    if (!caller.issued || caller.pageId === pageId) return true;
    graphError(res, 403, {
      message:
        '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
      code: 200,
    });
    return false;
  };

  const createPost = (pageId: string, message: string, media: MediaRef[], options: Record<string, string>): FbPost => {
    const postNumber = numericId(16);
    const id = `${pageId}_${postNumber}`;
    const post: FbPost = {
      id,
      pageId,
      message,
      permalink: `https://www.facebook.com/${pageId}/posts/${postNumber}`,
      createdAt: new Date().toISOString(),
    };
    posts.set(id, post);
    lastMessage.set(pageId, message);
    state.recordPost({
      network: 'facebook',
      id,
      account: pageId,
      text: message,
      media,
      options,
      url: post.permalink,
      created_at: post.createdAt,
    });
    return post;
  };

  const isDuplicate = (pageId: string, message: string) => message !== '' && lastMessage.get(pageId) === message;
  const duplicate = (res: Response) =>
    graphError(res, 400, {
      message: '(#506) Duplicate status message',
      code: 506,
      error_user_title: 'Duplicate Status',
      error_user_msg:
        'This status update is identical to the last one you posted. Try posting something different, or delete your previous update.',
    });

  router.post('/:id/feed', gate, auth, buc, (req, res) => {
    if (!mayPublish(req, res)) return;
    const pageId = idOf(req);
    const params = graphParams(req);
    const message = params.message ?? '';
    let attached: { media_fbid?: unknown }[] = [];
    if (params.attached_media !== undefined) {
      try {
        attached = JSON.parse(params.attached_media) as { media_fbid?: unknown }[];
      } catch {
        return invalidParameter(res, '(#100) param attached_media must be an array.');
      }
      if (!Array.isArray(attached)) return invalidParameter(res, '(#100) param attached_media must be an array.');
    }
    if (message === '' && !params.link && attached.length === 0)
      return invalidParameter(res, '(#100) Missing message or attachment');
    const media: MediaRef[] = [];
    for (const item of attached) {
      const photo = typeof item.media_fbid === 'string' ? photos.get(item.media_fbid) : undefined;
      if (!photo || photo.pageId !== pageId || photo.published || photo.attached) {
        return invalidParameter(res, `(#100) Invalid media_fbid: ${String(item.media_fbid)}`);
      }
      media.push({
        url: photo.url,
        kind: 'image',
        ...(photo.altText === undefined ? {} : { alt_text: photo.altText }),
      });
    }
    if (isDuplicate(pageId, message)) return duplicate(res);
    for (const item of attached) photos.get(item.media_fbid as string)!.attached = true;
    const options: Record<string, string> = params.link ? { link: params.link } : {};
    const post = createPost(pageId, message, media, options);
    markPostCreated(res, 'facebook');
    res.json(
      params.fields?.includes('permalink_url') ? { id: post.id, permalink_url: post.permalink } : { id: post.id },
    );
  });

  router.post('/:id/photos', gate, auth, buc, async (req, res) => {
    if (!mayPublish(req, res)) return;
    const pageId = idOf(req);
    const params = graphParams(req);
    if (!params.url) return graphError(res, 400, { message: '(#324) Requires upload file', code: 324 });
    const download = await ctx.fetchMedia(params.url);
    if (!download.ok) {
      return graphError(res, 400, {
        message: 'Invalid parameter',
        code: 100,
        error_subcode: 2069019,
        error_user_title: 'Invalid file',
        error_user_msg: `The file could not be downloaded from the URL ${params.url}.`,
      });
    }
    if (!PHOTO_FORMATS.has(download.format) || download.bytes.length > MAX_PHOTO_BYTES) {
      return graphError(res, 400, {
        message: 'Invalid parameter',
        code: 100,
        error_subcode: 1366046,
        error_user_title: 'Photo Not Supported',
        error_user_msg: 'Photos should be smaller than 4 MB and saved as JPG, PNG, GIF, TIFF, HEIF or WebP files.',
      });
    }
    if (params.alt_text_custom !== undefined && [...params.alt_text_custom].length > MAX_ALT_TEXT)
      return invalidParameter(res, `(#100) alt_text_custom must be at most ${MAX_ALT_TEXT} characters.`);
    const published = params.published !== 'false';
    const caption = params.caption ?? params.message ?? '';
    if (published && isDuplicate(pageId, caption)) return duplicate(res);
    const photo: FbPhoto = {
      id: numericId(16),
      pageId,
      url: params.url,
      published,
      postId: undefined,
      attached: false,
      altText: params.alt_text_custom,
    };
    photos.set(photo.id, photo);
    if (!published) return void res.json({ id: photo.id });
    const post = createPost(
      pageId,
      caption,
      [{ url: params.url, kind: 'image', ...(photo.altText === undefined ? {} : { alt_text: photo.altText }) }],
      {},
    );
    photo.postId = post.id;
    markPostCreated(res, 'facebook');
    res.json({ id: photo.id, post_id: post.id });
  });

  router.post('/:id/videos', gate, auth, buc, (req, res) => {
    if (!mayPublish(req, res)) return;
    const pageId = idOf(req);
    const params = graphParams(req);
    if (!params.file_url)
      return graphError(res, 400, { message: '(#100) No file_url or source was provided.', code: 100 });
    const description = params.description ?? '';
    if (isDuplicate(pageId, description)) return duplicate(res);
    const id = numericId(16);
    const video: FbVideo = {
      id,
      pageId,
      postId: `${pageId}_${id}`,
      description,
      download: startDownload(ctx.fetchMedia, params.file_url),
      polls: 0,
    };
    videos.set(id, video);
    lastMessage.set(pageId, description);
    state.recordPost({
      network: 'facebook',
      id: video.postId,
      account: pageId,
      text: description,
      media: [{ url: params.file_url, kind: 'video' }],
      options: params.title ? { title: params.title } : {},
      url: `https://www.facebook.com/${pageId}/videos/${id}/`,
      created_at: new Date().toISOString(),
    });
    markPostCreated(res, 'facebook');
    res.json({ id });
  });
}
