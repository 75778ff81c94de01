import { type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { liCallerOf, requireLiToken, requireVersion } from './li-auth.ts';
import { liError, renderLinkedInFault } from './li-errors.ts';
import { LI_STORES, type LiPost } from './li-records.ts';

/**
 * Posts API finder "posts by author": `GET /rest/posts?q=author&author={urn}&count=&start=&sortBy=`
 * with `X-RestLi-Method: FINDER`, newest first. Reading needs `r_member_social` for a member author
 * (a restricted permission most apps lack) or `r_organization_social` for a Page: without it
 * LinkedIn answers 403 ACCESS_DENIED, and a reconciliation cannot look the post up.
 */
export function registerLinkedInPostReads(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const auth = requireLiToken(ctx);
  const version = requireVersion(state.now);
  const posts = state.store<LiPost>(LI_STORES.posts);

  router.get('/rest/posts', gate, auth, version, (req, res) => {
    if (String(req.headers['x-restli-method'] ?? '').toUpperCase() !== 'FINDER')
      return liError(res, 400, 'A finder request needs the X-RestLi-Method: FINDER header.', 'ILLEGAL_ARGUMENT');
    if (req.query.q !== 'author' || typeof req.query.author !== 'string')
      return liError(res, 400, 'Parameters q=author and author are required.', 'ILLEGAL_ARGUMENT');
    const author = req.query.author;
    const caller = liCallerOf(res);
    const scopes = state.tokens.get(caller.token)?.scopes;
    const needed = author.startsWith('urn:li:organization:') ? 'r_organization_social' : 'r_member_social';
    if (scopes !== undefined && !scopes.includes(needed))
      return liError(
        res,
        403,
        `Not enough permissions to access: GET-author /rest/posts (needs ${needed})`,
        'ACCESS_DENIED',
        100,
      );
    if (!author.startsWith('urn:li:organization:') && author !== caller.personUrn)
      return liError(res, 403, 'Not enough permissions to access: GET-author /rest/posts', 'ACCESS_DENIED', 100);
    const start = req.query.start === undefined ? 0 : Number(req.query.start);
    const count = req.query.count === undefined ? 10 : Number(req.query.count);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(count) || count < 1 || count > 100)
      return liError(res, 400, 'start must be >= 0 and count between 1 and 100.', 'ILLEGAL_ARGUMENT');
    const all = [...posts.values()].filter((post) => post.author === author).sort((a, b) => b.createdAt - a.createdAt);
    res.json({
      elements: all.slice(start, start + count).map((post) => ({
        id: post.urn,
        author: post.author,
        commentary: post.commentary,
        ...(post.content === undefined ? {} : { content: post.content }),
        visibility: 'PUBLIC',
        lifecycleState: 'PUBLISHED',
        createdAt: post.createdAt,
        publishedAt: post.createdAt,
        lastModifiedAt: post.createdAt,
      })),
      paging: { start, count, links: [], total: all.length },
    });
  });
}
