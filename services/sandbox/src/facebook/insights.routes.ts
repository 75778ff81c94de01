import { type NextFunction, type Request, type Response, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { graphParams, idOf, requireGraphToken } from './graph-auth.ts';
import { graphError, renderGraphFault, unsupportedGet } from './graph-errors.ts';
import { STORES, type FbPhoto, type FbPost, type FbReel, type FbVideo, type IgMedia } from './graph-records.ts';
import { fbPostInsights, fbVideoInsights, igInsights, type InsightsAnswer } from './insights.ts';

/**
 * Analytics reads of Instagram media and Facebook Page posts (docs/networks.md §1.5, §2.5): media and post
 * insights, video insights, and a post's `attachments` (how a client finds the video behind a post).
 */
export function registerInsights(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const igMedia = state.store<IgMedia>(STORES.igMedia);
  const posts = state.store<FbPost>(STORES.fbPosts);
  const photos = state.store<FbPhoto>(STORES.fbPhotos);
  const videos = state.store<FbVideo>(STORES.fbVideos);
  const reels = state.store<FbReel>(STORES.fbReels);
  const auth = requireGraphToken(ctx);
  const igGate = ctx.gate(['instagram'], renderGraphFault);
  const fbGate = ctx.gate(['facebook'], renderGraphFault);
  const videoOfPost = (postId: string) => [...videos.values()].find((video) => video.postId === postId);
  const isFbPost = (id: string) => posts.has(id) || videoOfPost(id) !== undefined;
  const gateFor = (req: Request, res: Response, next: NextFunction) =>
    (igMedia.has(idOf(req)) ? igGate : fbGate)(req, res, next);
  const send = (res: Response, answer: InsightsAnswer) =>
    'error' in answer ? graphError(res, 400, answer.error) : void res.json({ data: answer.data });
  const metricsOf = (req: Request, res: Response): string[] | undefined => {
    const param = graphParams(req).metric;
    if (param) return param.split(',').map((metric) => metric.trim());
    graphError(res, 400, { message: '(#100) The parameter metric is required', code: 3001, error_subcode: 1504028 });
    return undefined;
  };

  // Only `attachments` reads of Page posts are answered here; every other object read goes on to objects.routes.
  router.get(
    '/:id',
    (req, _res, next) =>
      next((graphParams(req).fields ?? '').includes('attachments') && isFbPost(idOf(req)) ? undefined : 'route'),
    fbGate,
    auth,
    (req, res) => {
      const id = idOf(req);
      const video = videoOfPost(id);
      const photo = [...photos.values()].find((item) => item.postId === id);
      const attachment = video
        ? {
            media_type: 'video',
            target: { id: video.id, url: `https://www.facebook.com/${video.pageId}/videos/${video.id}/` },
          }
        : photo
          ? {
              media_type: 'photo',
              target: { id: photo.id, url: `https://www.facebook.com/photo.php?fbid=${photo.id}` },
            }
          : undefined;
      res.json({ id, attachments: { data: attachment ? [attachment] : [] } });
    },
  );

  router.get('/:id/insights', gateFor, auth, (req, res) => {
    const id = idOf(req);
    const metrics = metricsOf(req, res);
    if (!metrics) return;
    const media = igMedia.get(id);
    if (media) return send(res, igInsights(media, metrics, state.metricsOf('instagram', id) ?? {}));
    if (isFbPost(id)) return send(res, fbPostInsights(id, metrics, state.metricsOf('facebook', id) ?? {}));
    unsupportedGet(res, id);
  });

  router.get('/:id/video_insights', fbGate, auth, (req, res) => {
    const video = videos.get(idOf(req));
    // A published reel's insights are its video's, set under the reel's (video) id.
    const reel = reels.get(idOf(req));
    const postId = video?.postId ?? (reel?.phase === 'finished' ? reel.id : undefined);
    if (postId === undefined) return unsupportedGet(res, idOf(req));
    const metrics = metricsOf(req, res);
    if (!metrics) return;
    send(res, fbVideoInsights(idOf(req), metrics, state.metricsOf('facebook', postId) ?? {}));
  });
}
