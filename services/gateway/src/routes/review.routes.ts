import { publisherApprovalDecide, publisherApprovalRequest, publisherJobGet } from '@svc/contracts';
import { AppError, conflict, notFound, validationError } from '@svc/errors';
import type { ReviewGrant, ReviewLinks } from '../domain/review-link.ts';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { operations } from '../openapi/operations.ts';
import { pageResult } from './oauth-handoff-page.ts';
import { decidedPage, reviewPage } from './review-page.ts';

export interface ReviewRouteOptions {
  links: ReviewLinks;
  /** PUBLIC_BASE_URL: where the links point. */
  publicBaseUrl: string;
  ttlSeconds: number;
}

const DECISIONS = new Set(['approve', 'request_changes']);

/**
 * Approval of drafts (docs/api-conventions.md, "Approval"): asked for with an API key or by a user;
 * decided by a dashboard user, or by anyone holding a signed review link, whose page needs no account.
 */
export function reviewRoutes(rpc: RpcCaller, options: ReviewRouteOptions): Route[] {
  /** The draft a link shows, as long as the link holds: signed, unexpired, the same version, still pending. */
  const granted = (token: string): ReviewGrant => {
    const grant = options.links.verify(token);
    if (grant === undefined) throw notFound('This review link');
    if (grant.expiresAt * 1000 <= Date.now())
      throw new AppError('link_expired', 'This review link has expired; ask for a new one.');
    return grant;
  };
  const pendingDraft = async (grant: ReviewGrant, requestId: string) => {
    const post = await rpc(publisherJobGet, { job_id: grant.postId }, { orgId: grant.orgId, requestId });
    if (post.status !== 'draft' || post.version !== grant.version)
      throw conflict('The post was edited or sent since this review link was made; ask for a new link.');
    if (post.approval?.status !== 'pending') throw conflict('This post has no approval pending any more.');
    return post;
  };

  return [
    defineRoute(operations.requestPostApproval, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(publisherApprovalRequest, { job_id: params.post_id }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.reviewPost, async ({ params, body, principal, requestId }) => ({
      status: 200,
      body: await rpc(
        publisherApprovalDecide,
        {
          job_id: params.post_id,
          decision: body.decision,
          ...(body.comment === undefined ? {} : { comment: body.comment }),
          via: 'dashboard',
          by: principal.kind === 'jwt' ? principal.userId : null,
        },
        { orgId: principal.orgId, requestId },
      ),
    })),

    defineRoute(operations.createReviewLink, async ({ params, principal, requestId }) => {
      const post = await rpc(publisherJobGet, { job_id: params.post_id }, { orgId: principal.orgId, requestId });
      if (post.status !== 'draft' || post.version === undefined || post.approval?.status !== 'pending')
        throw conflict(`The post ${post.id} has no approval pending; ask for approval first (request-approval).`);
      const expiresAt = Math.floor(Date.now() / 1000) + options.ttlSeconds;
      const token = options.links.sign({ orgId: principal.orgId, postId: post.id, version: post.version, expiresAt });
      return {
        status: 201,
        body: {
          url: `${options.publicBaseUrl.replace(/\/$/, '')}/v1/review/${token}`,
          expires_at: new Date(expiresAt * 1000).toISOString(),
          version: post.version,
        },
      };
    }),

    defineRoute(operations.openReviewPage, async ({ params, requestId }) => {
      const post = await pendingDraft(granted(params.token), requestId);
      return pageResult(reviewPage(post, params.token));
    }),

    defineRoute(operations.submitReview, async ({ params, rawBody, requestId }) => {
      const grant = granted(params.token);
      const form = new URLSearchParams(rawBody?.toString('utf8') ?? '');
      const decision = form.get('decision') ?? '';
      const comment = (form.get('comment') ?? '').trim();
      if (!DECISIONS.has(decision))
        throw validationError('decision must be approve or request_changes.', [
          { path: '/body/decision', message: 'must be approve or request_changes', rule: 'enum' },
        ]);
      if (comment.length > 2000)
        throw validationError('The comment is too long.', [
          { path: '/body/comment', message: 'must be at most 2000 characters', rule: 'maxLength' },
        ]);
      await pendingDraft(grant, requestId);
      await rpc(
        publisherApprovalDecide,
        {
          job_id: grant.postId,
          decision: decision as 'approve' | 'request_changes',
          ...(comment === '' ? {} : { comment }),
          via: 'review_link',
          by: null,
          version: grant.version,
        },
        { orgId: grant.orgId, requestId },
      );
      return pageResult(decidedPage(decision as 'approve' | 'request_changes'));
    }),
  ];
}
