import { type Request, type Response, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { callerOf, graphParams, idOf, requireGraphToken } from './graph-auth.ts';
import { graphError, invalidParameter, renderGraphFault } from './graph-errors.ts';
import { STORES, type FbReel, type IgMedia } from './graph-records.ts';
import { reelPermalink } from './reels.routes.ts';

const graphTime = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, '+0000');

interface Paged<T> {
  data: T[];
  paging?: { cursors: { before: string; after: string }; next?: string };
}

/**
 * Cursor paging as Graph does it: `limit` (default 25, at most 100) and opaque `after` cursors,
 * `paging.next` only while more remain. `since` (unix seconds or a date) keeps newer objects only.
 */
function page<T>(req: Request, res: Response, items: { at: number; value: T }[]): Paged<T> | undefined {
  const params = graphParams(req);
  const limit = params.limit === undefined ? 25 : Number(params.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return void invalidParameter(res, '(#100) The parameter limit must be between 1 and 100.');
  const since =
    params.since === undefined
      ? undefined
      : /^\d+$/.test(params.since)
        ? Number(params.since) * 1000
        : Date.parse(params.since);
  if (since !== undefined && Number.isNaN(since))
    return void invalidParameter(res, '(#100) The parameter since is not a valid time.');
  const offset = params.after === undefined ? 0 : Number(Buffer.from(params.after, 'base64url').toString());
  if (!Number.isInteger(offset) || offset < 0) return void invalidParameter(res, '(#100) Invalid cursor.');
  const all = items.filter((item) => since === undefined || item.at >= since).sort((a, b) => b.at - a.at);
  const slice = all.slice(offset, offset + limit);
  if (slice.length === 0) return { data: [] };
  const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
  const more = offset + limit < all.length;
  const next = new URL(`${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`);
  next.searchParams.set('after', cursor(offset + limit));
  return {
    data: slice.map((item) => item.value),
    paging: {
      cursors: { before: cursor(offset), after: cursor(offset + slice.length) },
      ...(more ? { next: next.toString() } : {}),
    },
  };
}

/**
 * What a Page and an Instagram account published, newest first: `GET /{page-id}/published_posts` and
 * `GET /{page-id}/video_reels` (each needs that Page's token, Graph error #210 otherwise) and
 * `GET /{ig-user-id}/media`. The
 * publisher's reconciliation reads them to learn whether a post whose answer was lost exists.
 */
export function registerTimelines(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const auth = requireGraphToken(ctx);
  const igMedia = state.store<IgMedia>(STORES.igMedia);
  const reels = state.store<FbReel>(STORES.fbReels);
  const fields = (req: Request) => (graphParams(req).fields ?? 'id').split(',');
  const pick = (req: Request, value: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(value).filter(([key]) => key === 'id' || fields(req).includes(key)));

  router.get('/:id/published_posts', ctx.gate(['facebook'], renderGraphFault), auth, (req, res) => {
    const pageId = idOf(req);
    const caller = callerOf(res);
    if (caller.issued && caller.pageId !== pageId)
      return graphError(res, 400, {
        message: '(#210) A page access token is required to request this resource.',
        code: 210,
      });
    const items = state
      .postsOf('facebook')
      .filter((post) => post.account === pageId)
      .map((post) => ({
        at: Date.parse(post.created_at),
        value: pick(req, {
          id: post.id,
          message: post.text,
          created_time: graphTime(post.created_at),
          permalink_url: post.url,
        }),
      }));
    const body = page(req, res, items);
    if (body) res.json(body);
  });

  // A Page's published reels, newest first (the adapter reads their times after a publishing-limit refusal).
  router.get('/:id/video_reels', ctx.gate(['facebook'], renderGraphFault), auth, (req, res) => {
    const pageId = idOf(req);
    const caller = callerOf(res);
    if (caller.issued && caller.pageId !== pageId)
      return graphError(res, 400, {
        message: '(#210) A page access token is required to request this resource.',
        code: 210,
      });
    const items = [...reels.values()]
      .filter((reel) => reel.pageId === pageId && reel.publishedAt !== undefined)
      .map((reel) => ({
        at: reel.publishedAt!,
        value: pick(req, {
          id: reel.id,
          description: reel.description,
          created_time: graphTime(new Date(reel.publishedAt!).toISOString()),
          permalink_url: reelPermalink(reel.id),
        }),
      }));
    const body = page(req, res, items);
    if (body) res.json(body);
  });

  router.get('/:id/media', ctx.gate(['instagram'], renderGraphFault), auth, (req, res) => {
    const igUserId = idOf(req);
    const items = [...igMedia.values()]
      .filter((item) => item.igUserId === igUserId)
      .map((item) => ({
        at: Date.parse(item.timestamp.replace('+0000', 'Z')),
        value: pick(req, {
          id: item.id,
          caption: item.caption,
          timestamp: item.timestamp,
          permalink: item.permalink,
          media_type: item.mediaType,
          media_product_type: item.productType,
        }),
      }));
    const body = page(req, res, items);
    if (body) res.json(body);
  });
}
