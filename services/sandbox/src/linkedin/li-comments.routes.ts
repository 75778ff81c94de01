import { json, type Router } from 'express';
import { commentsUnder, recordComment, type RecordedComment } from '../comments/comment-records.ts';
import { type SandboxContext } from '../context.ts';
import { scopedFaultGate } from '../http/scoped-faults.ts';
import { numericId } from '../state/ids.ts';
import { liCallerOf, mayActAs, requireLiToken, requireVersion } from './li-auth.ts';
import { liError, renderLinkedInFault } from './li-errors.ts';
import { LI_STORES, type LiPost } from './li-records.ts';

interface CommentBody {
  actor?: unknown;
  object?: unknown;
  message?: { text?: unknown };
}

/** The comment as the Comments API returns it. */
function view(comment: RecordedComment) {
  const time = Date.parse(comment.created_at);
  return {
    id: comment.id,
    commentUrn: `urn:li:comment:(${comment.post_id},${comment.id})`,
    actor: comment.account,
    object: comment.post_id,
    message: { text: comment.text },
    created: { actor: comment.account, time },
    lastModified: { actor: comment.account, time },
  };
}

/**
 * Comments API (Community Management, "Comments"): `POST /rest/socialActions/{post urn}/comments`
 * with `{actor, object, message: {text}}` answers 201 with the comment (its URN also in
 * `x-restli-id`); `GET` lists a post's comments oldest first (`start`, `count`, `paging.total`).
 * Commenting needs the actor's write permission (`w_member_social`, or `w_organization_social` for a
 * Page it administers); reading needs `r_member_social` or `r_organization_social`, as reading posts does.
 */
export function registerLinkedInComments(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const commentFaults = scopedFaultGate({
    state,
    network: 'linkedin',
    scopeOf: () => 'comment',
    render: renderLinkedInFault,
    hangMs: ctx.timeoutFaultMs,
  });
  const auth = requireLiToken(ctx);
  const version = requireVersion(state.now);
  const posts = state.store<LiPost>(LI_STORES.posts);

  router.post(
    '/rest/socialActions/:urn/comments',
    json({ limit: '1mb' }),
    commentFaults,
    gate,
    auth,
    version,
    (req, res) => {
      const urn = String(req.params.urn);
      const post = posts.get(urn);
      if (!post) return liError(res, 404, `Post ${urn} does not exist.`, 'NOT_FOUND');
      const body = (req.body ?? {}) as CommentBody;
      if (body.object !== undefined && body.object !== urn)
        return liError(res, 400, 'object must be the URN of the post commented on.', 'ILLEGAL_ARGUMENT');
      const text = typeof body.message?.text === 'string' ? body.message.text : '';
      if (text.trim() === '')
        return liError(res, 422, 'ERROR :: /message/text :: field is required but not found and has no default value');
      if (!mayActAs(liCallerOf(res), body.actor))
        return liError(
          res,
          403,
          'Not enough permissions to access: POST /rest/socialActions/{id}/comments',
          'ACCESS_DENIED',
          100,
        );
      const comment: RecordedComment = {
        network: 'linkedin',
        id: numericId(19, '7'),
        post_id: urn,
        account: String(body.actor),
        text,
        created_at: new Date(state.now()).toISOString(),
      };
      recordComment(state, comment);
      const created = view(comment);
      res.setHeader('x-restli-id', created.commentUrn);
      res.status(201).json(created);
    },
  );

  router.get('/rest/socialActions/:urn/comments', gate, auth, version, (req, res) => {
    const urn = String(req.params.urn);
    const post = posts.get(urn);
    if (!post) return liError(res, 404, `Post ${urn} does not exist.`, 'NOT_FOUND');
    const scopes = state.tokens.get(liCallerOf(res).token)?.scopes;
    const needed = post.author.startsWith('urn:li:organization:') ? 'r_organization_social' : 'r_member_social';
    if (scopes !== undefined && !scopes.includes(needed))
      return liError(
        res,
        403,
        `Not enough permissions to access: GET /rest/socialActions/{id}/comments (needs ${needed})`,
        'ACCESS_DENIED',
        100,
      );
    const start = req.query.start === undefined ? 0 : Number(req.query.start);
    const count = req.query.count === undefined ? 10 : Number(req.query.count);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(count) || count < 1 || count > 100)
      return liError(res, 400, 'start must be >= 0 and count between 1 and 100.', 'ILLEGAL_ARGUMENT');
    const all = commentsUnder(state, 'linkedin', urn);
    res.json({
      elements: all.slice(start, start + count).map(view),
      paging: { start, count, links: [], total: all.length },
    });
  });
}
