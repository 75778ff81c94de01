import { type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { scopedFaultGate } from '../http/scoped-faults.ts';
import { requireXToken } from './x-auth.ts';
import { invalidRequest, xFaultRenderer } from './x-errors.ts';
import { firstSince, mediaKey, referencedTweets, X_STORES, type XMedia, type XTweet } from './x-records.ts';

/**
 * User Tweet timeline, `GET /2/users/:id/tweets` (X API v2): newest first, `start_time` inclusive
 * (ISO 8601), `max_results` 5 to 100, `pagination_token` from `meta.next_token`, `tweet.fields`
 * created_at, attachments (`media_keys`) and referenced_tweets (a reply's `replied_to`). What the
 * publisher's reconciliation reads to learn whether a post, a thread's part or a reply whose answer
 * was lost exists.
 */
export function registerXTimeline(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['x'], xFaultRenderer());
  // Faults armed `on: lookup` take only these reads: a post's create call and its lookups apart.
  const lookupFaults = scopedFaultGate({
    state,
    network: 'x',
    scopeOf: () => 'lookup',
    render: xFaultRenderer(),
    hangMs: ctx.timeoutFaultMs,
  });
  const auth = requireXToken(ctx);
  const timelines = state.store<XTweet[]>(X_STORES.timelines);
  const media = state.store<XMedia>(X_STORES.media);
  const attachments = (tweet: XTweet) => {
    const keys = tweet.mediaIds.flatMap((id) => {
      const item = media.get(id);
      return item === undefined ? [] : [mediaKey(item)];
    });
    return keys.length === 0 ? {} : { attachments: { media_keys: keys } };
  };

  router.get('/2/users/:id/tweets', lookupFaults, gate, auth, (req, res) => {
    const max = req.query.max_results === undefined ? 10 : Number(req.query.max_results);
    if (!Number.isInteger(max) || max < 5 || max > 100)
      return invalidRequest(res, 'max_results', 'The `max_results` query parameter value must be between 5 and 100.');
    const start = req.query.start_time === undefined ? undefined : Date.parse(String(req.query.start_time));
    if (start !== undefined && Number.isNaN(start))
      return invalidRequest(res, 'start_time', 'Invalid start_time: it must be an ISO 8601 timestamp.');
    const offset =
      req.query.pagination_token === undefined ? 0 : Number.parseInt(String(req.query.pagination_token), 36);
    if (!Number.isInteger(offset) || offset < 0)
      return invalidRequest(res, 'pagination_token', 'Invalid pagination_token.');
    const userId = String(req.params.id);
    const timeline = timelines.get(userId) ?? [];
    // Newest first: the page is the `max` tweets below the newest `offset`, down to the first since `start`.
    const oldest = start === undefined ? 0 : firstSince(timeline, start);
    const newest = timeline.length - offset;
    const page = newest <= oldest ? [] : timeline.slice(Math.max(oldest, newest - max), newest).reverse();
    const fields = String(req.query['tweet.fields'] ?? '').split(',');
    const next = newest - max > oldest ? (offset + max).toString(36) : undefined;
    res.json({
      ...(page.length > 0
        ? {
            data: page.map((tweet) => ({
              id: tweet.id,
              text: tweet.text,
              edit_history_tweet_ids: [tweet.id],
              ...(fields.includes('created_at') ? { created_at: tweet.createdAt } : {}),
              ...(fields.includes('attachments') ? attachments(tweet) : {}),
              ...referencedTweets(tweet, fields),
            })),
          }
        : {}),
      meta: {
        result_count: page.length,
        ...(page.length > 0 ? { newest_id: page[0]!.id, oldest_id: page.at(-1)!.id } : {}),
        ...(next === undefined ? {} : { next_token: next }),
      },
    });
  });
}
