import { publisherDraftDelete, publisherDraftPublish, publisherDraftUpdate, publisherJobRetry } from '@svc/contracts';
import { validationError } from '@svc/errors';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { idempotencyKeyOf, type IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { operations } from '../openapi/operations.ts';

/** `If-Match: 3`, `"3"` or `W/"3"`: the draft version an edit was made from. */
export function ifMatchVersion(headers: Record<string, string | string[] | undefined>): number | undefined {
  const raw = headers['if-match'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  const match = /^\s*(?:W\/)?"?([1-9]\d{0,9})"?\s*$/.exec(value ?? '');
  if (match === null)
    throw validationError('If-Match must be the draft\'s version, e.g. "3".', [
      { path: '/headers/if-match', message: 'must be a positive integer, optionally quoted', rule: 'if_match' },
    ]);
  return Number(match[1]);
}

/** The version named by If-Match and/or the body; both given must agree. */
function versionOf(headers: Record<string, string | string[] | undefined>, bodyVersion: number | undefined) {
  const header = ifMatchVersion(headers);
  if (header !== undefined && bodyVersion !== undefined && header !== bodyVersion)
    throw validationError('If-Match and version name different versions; send one.', [
      { path: '/body/version', message: `is ${bodyVersion} but If-Match is ${header}`, rule: 'version_mismatch' },
    ]);
  return header ?? bodyVersion;
}

/**
 * Drafts (edit, publish, delete) and the retry of failed targets (docs/api-conventions.md,
 * "Drafts" and "Retry failed targets"). The publisher decides; the gateway checks the shape and
 * applies `Idempotency-Key` to publish and retry (the same key answers the first answer again, so a
 * repeated retry never delivers twice).
 */
export function draftRoutes(rpc: RpcCaller, idempotency: IdempotencyStore): Route[] {
  const once = (orgId: string, headers: Record<string, string | string[] | undefined>, path: string) => {
    const key = idempotencyKeyOf(headers);
    return key === undefined ? undefined : { orgId, key, method: 'post', path };
  };
  return [
    defineRoute(operations.updatePost, async ({ params, body, principal, requestId, headers }) => {
      const { version: bodyVersion, platform_options: options, ...fields } = body;
      const version = versionOf(headers, bodyVersion);
      const changes = {
        ...fields,
        ...(options === undefined ? {} : { options: options as Record<string, Record<string, unknown>> }),
      };
      return {
        status: 200,
        body: await rpc(
          publisherDraftUpdate,
          {
            job_id: params.post_id,
            ...(version === undefined ? {} : { version }),
            changes,
            ...(options === undefined ? {} : { options_field: 'platform_options' }),
          },
          { orgId: principal.orgId, requestId },
        ),
      };
    }),

    defineRoute(operations.publishPost, async ({ params, body, principal, requestId, headers }) => {
      const version = versionOf(headers, body.version);
      const path = `/v1/posts/${params.post_id}/publish`;
      return idempotency.run(once(principal.orgId, headers, path), body, async () => ({
        status: 202,
        body: await rpc(
          publisherDraftPublish,
          {
            job_id: params.post_id,
            ...(version === undefined ? {} : { version }),
            ...(body.scheduled_at === undefined ? {} : { scheduled_at: body.scheduled_at }),
          },
          { orgId: principal.orgId, requestId },
        ),
      }));
    }),

    defineRoute(operations.deletePost, async ({ params, principal, requestId }) => {
      await rpc(publisherDraftDelete, { job_id: params.post_id }, { orgId: principal.orgId, requestId });
      return { status: 204 };
    }),

    defineRoute(operations.retryPost, async ({ params, body, principal, requestId, headers }) =>
      idempotency.run(once(principal.orgId, headers, `/v1/posts/${params.post_id}/retry`), body, async () => ({
        status: 202,
        body: await rpc(publisherJobRetry, { job_id: params.post_id }, { orgId: principal.orgId, requestId }),
      })),
    ),

    // The job view's path shares the post's key space: a key used on one answers on the other.
    defineRoute(operations.retryPublishJob, async ({ params, body, principal, requestId, headers }) =>
      idempotency.run(once(principal.orgId, headers, `/v1/posts/${params.job_id}/retry`), body, async () => ({
        status: 202,
        body: await rpc(publisherJobRetry, { job_id: params.job_id }, { orgId: principal.orgId, requestId }),
      })),
    ),
  ];
}
