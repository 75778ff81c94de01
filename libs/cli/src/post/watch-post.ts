import { setTimeout as delay } from 'node:timers/promises';
import type { SvcClient } from '@svc/sdk';
import { OutcomeError } from '../errors.ts';
import { isSettled, type PostView } from './post-view.ts';

const POLL_MS = 1_000;

/**
 * Reads the post until every target is final, calling `onChange` with each read that differs from
 * the one before (the first read included). Gives up after `timeoutMs` with an error naming the
 * post, which keeps running on the server.
 */
export async function watchPost(
  client: SvcClient,
  postId: string,
  timeoutMs: number,
  onChange: (post: PostView) => void,
): Promise<PostView> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const post = (await client.posts.get(postId)) as PostView;
    const seen = JSON.stringify([post.status, post.results.map((result) => [result.status, result.attempts])]);
    if (seen !== last) {
      last = seen;
      onChange(post);
    }
    if (isSettled(post)) return post;
    if (Date.now() >= deadline)
      throw new OutcomeError(
        `post ${postId} is still ${post.status} after ${Math.round(timeoutMs / 1000)} s (svc job ${postId} --watch)`,
      );
    await delay(POLL_MS);
  }
}
