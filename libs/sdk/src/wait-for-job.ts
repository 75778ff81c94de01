// Polls a job until it has settled (docs/api-conventions.md, "Publishing model and statuses").
import { sleep } from './sleep.ts';
import type { Call, RequestOptions } from './call.ts';
import type { ResponseData } from './contract.ts';
import { SvcWaitTimeoutError } from './errors.ts';

export type Post = ResponseData<'getPost'>;

/** A job's final statuses, and a target's: nothing changes them any more. */
const FINAL_JOB = new Set(['published', 'partial', 'failed', 'canceled']);
const FINAL_TARGET = new Set(['published', 'failed', 'canceled']);

export interface WaitOptions extends Pick<RequestOptions, 'signal'> {
  /** Give up after this long (default 5 minutes) with SvcWaitTimeoutError. */
  timeoutMs?: number;
  /** Time between two reads (default 1 s). */
  intervalMs?: number;
}

/** True once the job and every one of its targets have a final status. */
export function isSettled(post: Post): boolean {
  return FINAL_JOB.has(post.status) && post.results.every((result) => FINAL_TARGET.has(result.status));
}

export function waitForJobOf(call: Call) {
  /** Reads the post (a job id is its post id) until every target is final, and returns it. */
  return async (jobId: string, options: WaitOptions = {}): Promise<Post> => {
    const { timeoutMs = 300_000, intervalMs = 1000, signal } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const post = await call('getPost', { path: { post_id: jobId }, ...(signal === undefined ? {} : { signal }) });
      if (isSettled(post)) return post;
      if (Date.now() + intervalMs > deadline)
        throw new SvcWaitTimeoutError(`Job ${jobId} is still ${post.status} after ${timeoutMs} ms.`, post);
      await sleep(intervalMs, signal);
    }
  };
}
