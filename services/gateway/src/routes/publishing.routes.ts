import {
  publisherJobCancel,
  publisherJobCreate,
  publisherJobGet,
  publisherJobList,
  publisherJobValidate,
  type PayloadOf,
  type PostViewType,
} from '@svc/contracts';
import type { Static } from '@sinclair/typebox';
import { defineRoute, type Route } from '../http/route.ts';
import type { RpcCaller } from '../http/rpc-caller.ts';
import { idempotencyKeyOf, type IdempotencyStore } from '../idempotency/idempotency-store.ts';
import { operations } from '../openapi/operations.ts';
import type { PostCreateBody } from '../openapi/publishing.schemas.ts';

/** `/v1/publish` shows a post as a job: the id is the job id, nothing else differs. */
const toJob = (post: PostViewType) => ({ job_id: post.id, status: post.status, scheduled_at: post.scheduled_at });

const toLogItem = (post: PostViewType) => ({
  id: post.id,
  job_id: post.id,
  status: post.status,
  text: post.text,
  providers: post.providers,
  results: post.results,
  created_at: post.created_at,
});

/** A `POST /v1/posts` body as the publisher's create and validate take it. */
export const jobPayload = (body: Static<typeof PostCreateBody>): PayloadOf<typeof publisherJobValidate> => ({
  account_ids: body.account_ids,
  ...(body.text === undefined ? {} : { text: body.text }),
  ...(body.thread === undefined ? {} : { thread: body.thread }),
  ...(body.media_urls === undefined ? {} : { media_urls: body.media_urls }),
  ...(body.media_ids === undefined ? {} : { media_ids: body.media_ids }),
  ...(body.media_alt_text === undefined ? {} : { media_alt_text: body.media_alt_text }),
  ...(body.platform_options === undefined
    ? {}
    : { options: body.platform_options as Record<string, Record<string, unknown>> }),
  ...(body.scheduled_at === undefined ? {} : { scheduled_at: body.scheduled_at }),
  ...(body.first_comment === undefined ? {} : { first_comment: body.first_comment }),
  ...(body.queue === undefined ? {} : { queue: body.queue }),
  ...(body.recurrence === undefined ? {} : { recurrence: body.recurrence }),
  options_field: 'platform_options',
});

type ListQuery = Omit<PayloadOf<typeof publisherJobList>, 'limit'> & { limit?: number | undefined };
const listPayload = (query: ListQuery): PayloadOf<typeof publisherJobList> => ({ ...query, limit: query.limit ?? 50 });

/**
 * Publish jobs and posts: two views of one record owned by the publisher (docs/api-conventions.md,
 * "Publishing model and statuses"). Validation that needs data (accounts, per-network content
 * rules, the schedule against the database clock) happens in the publisher; the gateway checks the
 * shape and applies `Idempotency-Key`.
 */
export function publishingRoutes(rpc: RpcCaller, idempotency: IdempotencyStore): Route[] {
  return [
    defineRoute(operations.createPublishJob, async ({ body, principal, requestId, headers }) => {
      const key = idempotencyKeyOf(headers);
      const scope =
        key === undefined
          ? undefined
          : { orgId: principal.orgId, key, method: 'post', path: operations.createPublishJob.path };
      return idempotency.run(scope, body, async (operation) => {
        const post = await rpc(
          publisherJobCreate,
          {
            ...(operation === undefined ? {} : { job_id: operation }),
            account_ids: body.account_ids,
            ...(body.text === undefined ? {} : { text: body.text }),
            ...(body.thread === undefined ? {} : { thread: body.thread }),
            ...(body.media_urls === undefined ? {} : { media_urls: body.media_urls }),
            ...(body.media_alt_text === undefined ? {} : { media_alt_text: body.media_alt_text }),
            ...(body.provider_options === undefined
              ? {}
              : { options: body.provider_options as Record<string, Record<string, unknown>> }),
            ...(body.scheduled_at === undefined ? {} : { scheduled_at: body.scheduled_at }),
            ...(body.first_comment === undefined ? {} : { first_comment: body.first_comment }),
            ...(body.queue === undefined ? {} : { queue: body.queue }),
            ...(body.recurrence === undefined ? {} : { recurrence: body.recurrence }),
            options_field: 'provider_options',
          },
          { orgId: principal.orgId, requestId },
        );
        return { status: 202, body: toJob(post) };
      });
    }),

    defineRoute(operations.listPublishJobs, async ({ query, principal, requestId }) => {
      const page = await rpc(publisherJobList, listPayload(query), { orgId: principal.orgId, requestId });
      return {
        status: 200,
        body: { items: page.items.map(toLogItem), next_cursor: page.next_cursor, total: page.total },
      };
    }),

    defineRoute(operations.cancelPublishJob, async ({ params, principal, requestId }) => ({
      status: 200,
      body: toJob(await rpc(publisherJobCancel, { job_id: params.job_id }, { orgId: principal.orgId, requestId })),
    })),

    defineRoute(operations.createPost, async ({ body, principal, requestId, headers }) => {
      const key = idempotencyKeyOf(headers);
      const scope =
        key === undefined
          ? undefined
          : { orgId: principal.orgId, key, method: 'post', path: operations.createPost.path };
      return idempotency.run(scope, body, async (operation) => {
        const post = await rpc(
          publisherJobCreate,
          {
            ...(operation === undefined ? {} : { job_id: operation }),
            ...jobPayload(body),
            ...(body.draft === true ? { draft: true } : {}),
          },
          { orgId: principal.orgId, requestId },
        );
        return { status: body.draft === true ? 201 : 202, body: post };
      });
    }),

    // No Idempotency-Key: nothing is created, so a retry is simply asked again.
    defineRoute(operations.validatePost, async ({ body, principal, requestId }) => ({
      status: 200,
      body: await rpc(
        publisherJobValidate,
        // draft too: a recurring draft is refused (recurrence_with_draft) as create refuses it.
        { ...jobPayload(body), ...(body.draft === true ? { draft: true } : {}) },
        { orgId: principal.orgId, requestId },
      ),
    })),

    defineRoute(operations.listPosts, async ({ query, principal, requestId }) => ({
      status: 200,
      body: await rpc(publisherJobList, listPayload(query), { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.getPost, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(publisherJobGet, { job_id: params.post_id }, { orgId: principal.orgId, requestId }),
    })),

    defineRoute(operations.cancelPost, async ({ params, principal, requestId }) => ({
      status: 200,
      body: await rpc(publisherJobCancel, { job_id: params.post_id }, { orgId: principal.orgId, requestId }),
    })),
  ];
}
