import { type NextFunction, type Request, type Response, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { type NetworkName } from '../state/types.ts';
import { callerOf, graphParams, idOf, pagesManagedBy, requireGraphToken } from './graph-auth.ts';
import { graphError, renderGraphFault, unsupportedGet } from './graph-errors.ts';
import {
  STORES,
  type FbPhoto,
  type FbPost,
  type FbReel,
  type FbVideo,
  type IgContainer,
  type IgMedia,
} from './graph-records.ts';
import { advanceContainer } from './ig-container-processing.ts';
import { reelView } from './reels.routes.ts';

const isIgUserId = (id: string) => id.startsWith('1784');

/** Reads of single objects (`GET /{id}`) for both Facebook and Instagram (insights: insights.routes.ts). */
export function registerObjects(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const containers = state.store<IgContainer>(STORES.igContainers);
  const igMedia = state.store<IgMedia>(STORES.igMedia);
  const posts = state.store<FbPost>(STORES.fbPosts);
  const photos = state.store<FbPhoto>(STORES.fbPhotos);
  const videos = state.store<FbVideo>(STORES.fbVideos);
  const reels = state.store<FbReel>(STORES.fbReels);
  const auth = requireGraphToken(ctx);
  const gates = new Map<string, ReturnType<SandboxContext['gate']>>();

  /** The network an object belongs to decides which armed fault a read consumes. */
  const networksOf = (id: string): NetworkName[] => {
    if (containers.has(id) || igMedia.has(id) || isIgUserId(id)) return ['instagram'];
    if (posts.has(id) || photos.has(id) || videos.has(id) || reels.has(id)) return ['facebook'];
    return ['facebook', 'instagram'];
  };
  const gate = (req: Request, res: Response, next: NextFunction) => {
    const networks = networksOf(idOf(req));
    const key = networks.join(',');
    let handler = gates.get(key);
    if (!handler) {
      handler = ctx.gate(networks, renderGraphFault);
      gates.set(key, handler);
    }
    handler(req, res, next);
  };

  router.get('/:id', gate, auth, async (req, res) => {
    const id = idOf(req);
    const fields = (graphParams(req).fields ?? '').split(',').map((field) => field.trim());
    const container = containers.get(id);
    if (container) {
      await advanceContainer(container, containers, ctx.processingPolls, ctx.fetchMedia);
      return void res.json({
        status_code: container.statusCode,
        ...(container.errorText ? { status: container.errorText } : {}),
        id,
      });
    }
    const media = igMedia.get(id);
    if (media) {
      const metrics = state.metricsOf('instagram', id) ?? {};
      return void res.json({
        id,
        permalink: media.permalink,
        shortcode: media.shortcode,
        media_type: media.mediaType,
        media_product_type: media.productType,
        caption: media.caption,
        timestamp: media.timestamp,
        like_count: typeof metrics.likes === 'number' ? metrics.likes : 0,
        comments_count: typeof metrics.comments === 'number' ? metrics.comments : 0,
      });
    }
    const post = posts.get(id);
    if (post)
      return void res.json({
        id,
        message: post.message,
        permalink_url: post.permalink,
        created_time: post.createdAt.replace(/\.\d{3}Z$/, '+0000'),
      });
    const photo = photos.get(id);
    if (photo)
      return void res.json({
        id,
        link: `https://www.facebook.com/photo.php?fbid=${id}`,
        ...(photo.postId ? { page_story_id: photo.postId } : {}),
      });
    const reel = reels.get(id);
    if (reel) return void res.json(reelView(reel, ctx.processingPolls));
    const video = videos.get(id);
    if (video) {
      const result = video.download.result;
      const ready = result !== undefined && video.polls >= ctx.processingPolls;
      video.polls += 1;
      const failed = result !== undefined && (!result.ok || !['mp4', 'mov', 'webm'].includes(result.format));
      const status = failed
        ? {
            video_status: 'error',
            uploading_phase: { status: 'error' },
            processing_phase: {
              status: 'error',
              errors: [
                { code: 1363008, message: 'The video file could not be downloaded or is not a supported format.' },
              ],
            },
          }
        : ready
          ? {
              video_status: 'ready',
              uploading_phase: { status: 'complete' },
              processing_phase: { status: 'complete' },
              publishing_phase: { status: 'complete' },
            }
          : {
              video_status: 'processing',
              uploading_phase: { status: result ? 'complete' : 'in_progress' },
              processing_phase: { status: 'in_progress' },
              publishing_phase: { status: 'not_started' },
            };
      return void res.json({
        id,
        description: video.description,
        permalink_url: `/${video.pageId}/videos/${id}/`,
        status,
      });
    }
    if (isIgUserId(id)) {
      return void res.json({
        id,
        username: `sandbox_ig_${id.slice(-6)}`,
        name: `Sandbox IG ${id.slice(-4)}`,
        followers_count: 0,
        media_count: 0,
      });
    }
    if (!/^\d+$/.test(id)) return unsupportedGet(res, id);
    const caller = callerOf(res);
    if (fields.includes('access_token')) {
      if (caller.pageId !== undefined && caller.pageId !== id) return unsupportedGet(res, id);
      // A Page token only for a Page the user has a role on (Graph "Page Access Tokens").
      if (caller.pageId === undefined && !pagesManagedBy(caller.subject, caller.token).includes(id)) {
        return graphError(res, 400, {
          message:
            '(#200) The user must be an administrator, editor, or moderator of the page in order to impersonate it.',
          code: 200,
        });
      }
      const record = state.tokens.get(caller.token);
      const pageToken = caller.pageId
        ? caller.token
        : state.tokens.issue({
            family: 'facebook',
            subject: `page:${id}`,
            root: record?.root ?? caller.subject,
            clientId: record?.clientId ?? 'byok',
            scopes: [],
            accessPrefix: 'EAAP',
            accessTtlSeconds: undefined,
          }).accessToken;
      return void res.json({ id, name: `Sandbox Page ${id.slice(-4)}`, access_token: pageToken });
    }
    res.json({ id, name: `Sandbox Page ${id.slice(-4)}`, category: 'Brand' });
  });
}
