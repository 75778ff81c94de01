import { type AdapterDeps } from '../adapter-deps.ts';
import { createCall } from '../http/create-call.ts';
import { type CommentCapability } from '../types.ts';
import { xLookup } from './x.lookup.ts';

/**
 * A first comment on X is a reply by the account to its own post: `POST /2/tweets` with
 * `reply.in_reply_to_tweet_id` (X API v2 "Create Post"). One whose answer was lost is looked for in
 * the account's timeline among the replies to that post (`referenced_tweets` of type `replied_to`)
 * with the same text, as a thread's parts are.
 */
export function xComments(deps: AdapterDeps): CommentCapability {
  const lookup = xLookup(deps);
  return {
    async create({ credentials, postId, text }) {
      const response = await createCall(() =>
        deps.client.request<{ data: { id: string } }>({
          method: 'POST',
          url: '/2/tweets',
          data: { text, reply: { in_reply_to_tweet_id: postId } },
          headers: { Authorization: `Bearer ${credentials.accessToken}` },
        }),
      );
      return { platformCommentId: response.data.data.id };
    },
    async find({ credentials, postId, text, since, excludeIds }) {
      const found = await lookup.find({ credentials, text, mediaCount: 0, since, excludeIds, inReplyTo: postId });
      return found.status === 'found'
        ? { status: 'found', platformCommentId: found.result.platformPostId }
        : { status: 'absent' };
    },
  };
}
