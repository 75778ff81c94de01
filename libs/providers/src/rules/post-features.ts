import { networkLabels as LABEL, type AccountExtras, type ContentViolation, type Network } from '../types.ts';
import { codePoints, violation } from './rule-helpers.ts';
import { xTextLimit, xWeightedLength } from './x-text.ts';

/**
 * What a post can carry beyond its text and media, per network (docs/networks.md, "Threads and first
 * comments"): a thread (X only: each part replies to the one before, `reply.in_reply_to_tweet_id`;
 * LinkedIn and Facebook have no such post) and a first comment under the post (Graph's
 * `/{id}/comments`, LinkedIn's Comments API, a reply on X; TikTok's API has no way to comment).
 * `commentMaxLength`: the longest comment the network takes, in code points; X counts the
 * account's weighted limit instead, as for a post.
 */
export const postFeatures: Readonly<
  Record<Network, { threads: boolean; firstComment: boolean; commentMaxLength: number | undefined }>
> = {
  instagram: { threads: false, firstComment: true, commentMaxLength: 2200 },
  facebook: { threads: false, firstComment: true, commentMaxLength: 8000 },
  x: { threads: true, firstComment: true, commentMaxLength: undefined },
  linkedin: { threads: false, firstComment: true, commentMaxLength: 1250 },
  tiktok: { threads: false, firstComment: false, commentMaxLength: undefined },
};

/** The problems of a first comment for one account of a network: none when it can be posted as it is. */
export function checkFirstComment(network: Network, text: string, account?: AccountExtras): ContentViolation[] {
  const features = postFeatures[network];
  if (!features.firstComment)
    return [violation('first_comment_unsupported', `${LABEL[network]} posts cannot get a first comment.`)];
  if (network === 'x') {
    const limit = xTextLimit(account);
    const weighted = xWeightedLength(text);
    return weighted > limit
      ? [
          violation(
            'text_length',
            `A first comment on X is a reply, limited to ${limit} weighted characters for this account (this one counts ${weighted}).`,
          ),
        ]
      : [];
  }
  const max = features.commentMaxLength ?? Number.POSITIVE_INFINITY;
  const length = codePoints(text);
  return length > max
    ? [
        violation(
          'text_length',
          `${LABEL[network]} comments are limited to ${max} characters (this one has ${length}).`,
        ),
      ]
    : [];
}
