// Publish jobs and posts: two views of one record (a post's id is its job id).
import type { RequestOptions, Call } from '../call.ts';
import type { QueryParams, RequestBody, ResponseData } from '../contract.ts';
import { cursorPaginated } from '../pagination.ts';

type JobItem = ResponseData<'listPublishJobs'>['items'][number];
type PostItem = ResponseData<'listPosts'>['items'][number];

export function publishResource(call: Call) {
  return {
    /** Enqueue or schedule a job (202). Sent with an Idempotency-Key, kept across retries. */
    create: (body: RequestBody<'createPublishJob'>, options?: RequestOptions) =>
      call('createPublishJob', { body, ...options }),
    /** History, newest first: `for await` over every job, or `.page()` for one page. */
    list: (query: QueryParams<'listPublishJobs'> = {}, options?: RequestOptions) =>
      cursorPaginated<JobItem, ResponseData<'listPublishJobs'>, QueryParams<'listPublishJobs'>>(query, (page) =>
        call('listPublishJobs', { query: page, ...options }),
      ),
    /** Cancel a scheduled job (409 once it is no longer scheduled). */
    cancel: (jobId: string, options?: RequestOptions) =>
      call('cancelPublishJob', { path: { job_id: jobId }, ...options }),
    /** Deliver a finished job's failed targets again (202; 409 when none failed). Idempotency-Key kept across retries. */
    retry: (jobId: string, options?: RequestOptions) =>
      call('retryPublishJob', { path: { job_id: jobId }, body: {}, ...options }),
  };
}

export function postsResource(call: Call) {
  return {
    /** Create a post (202). Sent with an Idempotency-Key, kept across retries. */
    create: (body: RequestBody<'createPost'>, options?: RequestOptions) => call('createPost', { body, ...options }),
    /**
     * Check a create body without publishing: every problem of every target at once (200 with
     * `valid` and `problems`); no post, no side effect.
     */
    validate: (body: RequestBody<'validatePost'>, options?: RequestOptions) =>
      call('validatePost', { body, ...options }),
    /** Posts, newest first: `for await` over every post, or `.page()` for one page. */
    list: (query: QueryParams<'listPosts'> = {}, options?: RequestOptions) =>
      cursorPaginated<PostItem, ResponseData<'listPosts'>, QueryParams<'listPosts'>>(query, (page) =>
        call('listPosts', { query: page, ...options }),
      ),
    /** A post with one result per target account. */
    get: (postId: string, options?: RequestOptions) => call('getPost', { path: { post_id: postId }, ...options }),
    /** Cancel a scheduled post. */
    cancel: (postId: string, options?: RequestOptions) => call('cancelPost', { path: { post_id: postId }, ...options }),
    /**
     * Edit a draft (or a failed post's text and media before a retry). Pass the `version` you edited
     * (in the body, or `headers: {'If-Match': '3'}`) to get a 409 instead of overwriting another edit.
     */
    update: (postId: string, body: RequestBody<'updatePost'>, options?: RequestOptions) =>
      call('updatePost', { path: { post_id: postId }, body, ...options }),
    /** Send a draft (202), now or at `scheduled_at`; counted against the monthly posts then. */
    publish: (postId: string, body: RequestBody<'publishPost'> = {}, options?: RequestOptions) =>
      call('publishPost', { path: { post_id: postId }, body, ...options }),
    /** Delete a draft (409 for any other post). */
    delete: (postId: string, options?: RequestOptions) => call('deletePost', { path: { post_id: postId }, ...options }),
    /** Deliver a failed or partial post's failed targets again (202; 409 when none failed). */
    retry: (postId: string, options?: RequestOptions) =>
      call('retryPost', { path: { post_id: postId }, body: {}, ...options }),
    /** Ask for a draft's approval: it is published only once approved. */
    requestApproval: (postId: string, options?: RequestOptions) =>
      call('requestPostApproval', { path: { post_id: postId }, body: {}, ...options }),
    /** Approve a pending draft or request changes (a dashboard user's token only; an API key gets 403). */
    review: (postId: string, body: RequestBody<'reviewPost'>, options?: RequestOptions) =>
      call('reviewPost', { path: { post_id: postId }, body, ...options }),
    /** A signed, expiring review page link for someone without an account (`{url, expires_at, version}`). */
    createReviewLink: (postId: string, options?: RequestOptions) =>
      call('createReviewLink', { path: { post_id: postId }, body: {}, ...options }),
  };
}
