import { type Request, type Response, type Router } from 'express';
import { commentsUnder, recordComment, type RecordedComment } from '../comments/comment-records.ts';
import { type SandboxContext } from '../context.ts';
import { scopedFaultGate } from '../http/scoped-faults.ts';
import { numericId } from '../state/ids.ts';
import { type NetworkName } from '../state/types.ts';
import { callerOf, graphParams, idOf, igUserIdOf, requireGraphToken } from './graph-auth.ts';
import { graphError, invalidParameter, renderGraphFault } from './graph-errors.ts';
import { STORES, type FbPost, type FbReel, type IgMedia } from './graph-records.ts';

type GraphNetwork = Extract<NetworkName, 'instagram' | 'facebook'>;

/** Instagram caps a comment at 2,200 characters, like a caption. */
const MAX_IG_COMMENT = 2200;
const MAX_FB_COMMENT = 8000;

const graphTime = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, '+0000');

/**
 * Comments under a published post: `POST /{ig-media-id}/comments?message=` (Instagram Graph API,
 * "Comment Moderation") and `POST /{page-post-id}/comments` with `message` (Pages API, "Comments";
 * a reel is commented on through its video id),
 * each answering `{id}`; `GET /{object}/comments` lists them oldest first (Instagram: `id`, `text`,
 * `timestamp`, `from` when asked; Facebook: `id`, `message`, `created_time`, `from`), with Graph's cursor
 * paging (`limit`, `after`). The publisher's first comments are made and looked up here.
 */
export function registerGraphComments(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const auth = requireGraphToken(ctx);
  const igMedia = state.store<IgMedia>(STORES.igMedia);
  const posts = state.store<FbPost>(STORES.fbPosts);
  const reels = state.store<FbReel>(STORES.fbReels);
  /** The Page a Facebook post or published reel (a video object, commented on by its id) belongs to. */
  const pageOfObject = (id: string) =>
    posts.get(id)?.pageId ?? (reels.get(id)?.phase === 'finished' ? reels.get(id)?.pageId : undefined);
  const networkOf = (id: string): GraphNetwork | undefined =>
    igMedia.has(id) ? 'instagram' : pageOfObject(id) !== undefined ? 'facebook' : undefined;
  const gates = {
    instagram: ctx.gate(['instagram'], renderGraphFault),
    facebook: ctx.gate(['facebook'], renderGraphFault),
    unknown: ctx.gate(['facebook', 'instagram'], renderGraphFault),
  };
  const scoped = {
    instagram: commentFaults(ctx, 'instagram'),
    facebook: commentFaults(ctx, 'facebook'),
  };
  const missing = (res: Response, id: string) =>
    graphError(res, 400, {
      message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      type: 'GraphMethodException',
      code: 100,
      error_subcode: 33,
    });

  router.post(
    '/:id/comments',
    (req, res, next) => {
      const network = networkOf(idOf(req));
      if (network === undefined) return gates.unknown(req, res, next);
      scoped[network](req, res, (error?: unknown) =>
        error === undefined ? gates[network](req, res, next) : next(error),
      );
    },
    auth,
    (req, res) => {
      const id = idOf(req);
      const network = networkOf(id);
      if (network === undefined) return missing(res, id);
      const message = graphParams(req).message ?? '';
      if (message.trim() === '') return invalidParameter(res, '(#100) The parameter message is required.');
      const limit = network === 'instagram' ? MAX_IG_COMMENT : MAX_FB_COMMENT;
      if ([...message].length > limit)
        return invalidParameter(res, `(#100) The comment is too long: at most ${limit} characters.`);
      const caller = callerOf(res);
      // The post's own account comments: a Page through its Page token, Instagram through its owner's
      // token (BYOK tokens are taken on trust, as for publishing).
      const account = network === 'instagram' ? igMedia.get(id)!.igUserId : pageOfObject(id)!;
      const mayComment =
        !caller.issued || (network === 'facebook' ? caller.pageId === account : igUserIdOf(caller.subject) === account);
      if (!mayComment)
        return graphError(res, 403, {
          message: '(#200) Permissions error: this token cannot comment as the account that published the post.',
          code: 200,
        });
      const comment: RecordedComment = {
        network,
        id: network === 'instagram' ? numericId(17, '18') : `${id.split('_')[1] ?? id}_${numericId(16)}`,
        post_id: id,
        account,
        text: message,
        created_at: new Date(state.now()).toISOString(),
      };
      recordComment(state, comment);
      res.json({ id: comment.id });
    },
  );

  router.get(
    '/:id/comments',
    (req, res, next) => gates[networkOf(idOf(req)) ?? 'unknown'](req, res, next),
    auth,
    (req, res) => {
      const id = idOf(req);
      const network = networkOf(id);
      if (network === undefined) return missing(res, id);
      const page = pageOf(req, res, commentsUnder(state, network, id));
      if (page === undefined) return;
      res.json({
        data: page.items.map((comment) =>
          network === 'instagram'
            ? {
                id: comment.id,
                text: comment.text,
                timestamp: graphTime(comment.created_at),
                // The author only when asked for, as Instagram's comment fields go.
                ...((graphParams(req).fields ?? '').split(',').includes('from')
                  ? { from: { id: comment.account, username: `sandbox_ig_${comment.account.slice(-6)}` } }
                  : {}),
              }
            : {
                id: comment.id,
                message: comment.text,
                created_time: graphTime(comment.created_at),
                from: { id: comment.account, name: `Sandbox Page ${comment.account.slice(-4)}` },
              },
        ),
        ...(page.paging === undefined ? {} : { paging: page.paging }),
      });
    },
  );
}

/** Faults armed `on: comment` for this network's comments. */
function commentFaults(ctx: SandboxContext, network: GraphNetwork) {
  return scopedFaultGate({
    state: ctx.state,
    network,
    scopeOf: () => 'comment',
    render: renderGraphFault,
    hangMs: ctx.timeoutFaultMs,
  });
}

/** Graph's cursor paging over a list in its order: `limit` (default 25, at most 100), opaque `after`. */
function pageOf<T>(
  req: Request,
  res: Response,
  all: readonly T[],
): { items: T[]; paging?: { cursors: { before: string; after: string }; next?: string } } | undefined {
  const params = graphParams(req);
  const limit = params.limit === undefined ? 25 : Number(params.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return void invalidParameter(res, '(#100) The parameter limit must be between 1 and 100.');
  const offset = params.after === undefined ? 0 : Number(Buffer.from(params.after, 'base64url').toString());
  if (!Number.isInteger(offset) || offset < 0) return void invalidParameter(res, '(#100) Invalid cursor.');
  const items = all.slice(offset, offset + limit);
  if (items.length === 0) return { items };
  const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
  const next = new URL(`${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`);
  next.searchParams.set('after', cursor(offset + limit));
  return {
    items,
    paging: {
      cursors: { before: cursor(offset), after: cursor(offset + items.length) },
      ...(offset + limit < all.length ? { next: next.toString() } : {}),
    },
  };
}
