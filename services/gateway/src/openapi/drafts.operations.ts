import { defineOperation } from './operation.ts';
import { EmptyBody, IfMatchHeader, PostPublishBody, PostUpdateBody } from './drafts.schemas.ts';
import { IdempotencyKeyHeader, JobIdParams, Post, PostIdParams } from './publishing.schemas.ts';

const idempotent = { 'Idempotency-Key': IdempotencyKeyHeader };

/** Drafts (edit, publish, delete) and the retry of failed targets, declared like every operation. */
export const draftOperations = {
  retryPublishJob: defineOperation({
    operationId: 'retryPublishJob',
    method: 'post',
    path: '/v1/publish/{job_id}/retry',
    summary: "Deliver a finished job's failed targets again; the same as `POST /v1/posts/{post_id}/retry`.",
    tag: 'Publish jobs',
    auth: 'api_key_or_jwt',
    params: JobIdParams,
    headers: idempotent,
    body: EmptyBody,
    optionalBody: true,
    responses: { 202: Post },
    errors: [404, 409, 422],
  }),
  updatePost: defineOperation({
    operationId: 'updatePost',
    method: 'patch',
    path: '/v1/posts/{post_id}',
    summary:
      "Edit a draft: the fields given replace the draft's, the result is checked like a create, and `version` goes up by one. With `If-Match` (or `version`) naming another version: 409 `conflict`. A failed or partial post (not a thread) may have its `text`, `media_urls` and `media_ids` edited before a retry, checked against its failed targets. Any other post: 409.",
    tag: 'Posts',
    auth: 'api_key_or_jwt',
    params: PostIdParams,
    headers: { 'If-Match': IfMatchHeader },
    body: PostUpdateBody,
    responses: { 200: Post },
    errors: [400, 404, 409],
  }),
  deletePost: defineOperation({
    operationId: 'deletePost',
    method: 'delete',
    path: '/v1/posts/{post_id}',
    summary: 'Delete a draft (204). Any other post: 409 (cancel a scheduled post instead).',
    tag: 'Posts',
    auth: 'api_key_or_jwt',
    params: PostIdParams,
    responses: { 204: null },
    errors: [404, 409],
  }),
  publishPost: defineOperation({
    operationId: 'publishPost',
    method: 'post',
    path: '/v1/posts/{post_id}/publish',
    summary:
      "Send a draft, as create would (202): checked again, counted against the monthly posts (402 keeps the draft), queued, or scheduled at `scheduled_at` (given here, or the draft's). A post that is not a draft: 409.",
    tag: 'Posts',
    auth: 'api_key_or_jwt',
    params: PostIdParams,
    headers: idempotent,
    body: PostPublishBody,
    optionalBody: true,
    responses: { 202: Post },
    errors: [400, 402, 404, 409, 422],
  }),
  retryPost: defineOperation({
    operationId: 'retryPost',
    method: 'post',
    path: '/v1/posts/{post_id}/retry',
    summary:
      "Deliver a failed or partial post's failed targets again (202, the post back to `queued`): only targets without a `platform_post_id`; a target whose outcome was unknown is looked up at the network first, never blindly posted again. Each retried target starts a fresh attempt budget. No failed target: 409.",
    tag: 'Posts',
    auth: 'api_key_or_jwt',
    params: PostIdParams,
    headers: idempotent,
    body: EmptyBody,
    optionalBody: true,
    responses: { 202: Post },
    errors: [404, 409, 422],
  }),
};
