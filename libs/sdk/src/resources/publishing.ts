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
  };
}

export function postsResource(call: Call) {
  return {
    /** Create a post (202). Sent with an Idempotency-Key, kept across retries. */
    create: (body: RequestBody<'createPost'>, options?: RequestOptions) => call('createPost', { body, ...options }),
    /** Posts, newest first: `for await` over every post, or `.page()` for one page. */
    list: (query: QueryParams<'listPosts'> = {}, options?: RequestOptions) =>
      cursorPaginated<PostItem, ResponseData<'listPosts'>, QueryParams<'listPosts'>>(query, (page) =>
        call('listPosts', { query: page, ...options }),
      ),
    /** A post with one result per target account. */
    get: (postId: string, options?: RequestOptions) => call('getPost', { path: { post_id: postId }, ...options }),
    /** Cancel a scheduled post. */
    cancel: (postId: string, options?: RequestOptions) => call('cancelPost', { path: { post_id: postId }, ...options }),
  };
}
