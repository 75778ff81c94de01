import { json, type Router } from 'express';
import { markPostCreated } from '../http/outcome-faults.ts';
import { scopedFaultGate } from '../http/scoped-faults.ts';
import { type SandboxContext } from '../context.ts';
import { snowflakeId } from '../state/ids.ts';
import { requireXScopes, requireXToken, xCallerOf } from './x-auth.ts';
import { invalidRequest, problem, xFaultRenderer } from './x-errors.ts';
import { sendDailyHeaders, sendRateHeaders } from './x-limits.ts';
import { addToTimeline, referencedTweets, X_STORES, type XMedia, type XTweet } from './x-records.ts';
import { textLimitOf, weightedLength } from './x-text.ts';

const METRIC_KEYS = ['retweet_count', 'reply_count', 'like_count', 'quote_count', 'bookmark_count', 'impression_count'];

export const usernameOf = (userId: string) => `sandbox_${userId.slice(-8)}`;

interface CreateBody {
  text?: unknown;
  media?: { media_ids?: unknown };
  reply?: { in_reply_to_tweet_id?: unknown };
}

const replyTargetOf = (body: unknown): unknown => (body as CreateBody | undefined)?.reply?.in_reply_to_tweet_id;

/** X API v2 users/me and posts (docs/networks.md §3.1-§3.5), replies (`reply.in_reply_to_tweet_id`) included. */
export function registerXApi(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['x'], xFaultRenderer());
  // Faults armed `on: reply` take only posts that answer another (a thread's later parts, a first comment).
  const replyFaults = scopedFaultGate({
    state,
    network: 'x',
    scopeOf: (req) => (replyTargetOf(req.body) === undefined ? undefined : 'reply'),
    render: xFaultRenderer(),
    hangMs: ctx.timeoutFaultMs,
  });
  const auth = requireXToken(ctx);
  const media = state.store<XMedia>(X_STORES.media);
  const tweets = state.store<XTweet>(X_STORES.tweets);
  // X refuses a user's second post of the same text; looked up by key, not by scanning every tweet.
  const byText = state.store<string>(X_STORES.tweetsByText);
  const timelines = state.store<XTweet[]>(X_STORES.timelines);

  router.get('/2/users/me', gate, auth, requireXScopes('tweet.read', 'users.read'), (req, res) => {
    const { userId, subscription } = xCallerOf(res);
    sendRateHeaders(state, res, 'users.me', userId, 75);
    // Optional user fields come only when asked for, as on X (`user.fields`).
    const fields = String(req.query['user.fields'] ?? '').split(',');
    res.json({
      data: {
        id: userId,
        name: `Sandbox ${userId.slice(-4)}`,
        username: usernameOf(userId),
        ...(fields.includes('subscription_type') ? { subscription_type: subscription } : {}),
      },
    });
  });

  router.post(
    '/2/tweets',
    json(),
    replyFaults,
    gate,
    auth,
    requireXScopes('tweet.read', 'tweet.write', 'users.read'),
    (req, res) => {
      const { userId, subscription } = xCallerOf(res);
      const body = (req.body ?? {}) as CreateBody;
      const replyTo = replyTargetOf(body);
      if (replyTo !== undefined && (typeof replyTo !== 'string' || !/^\d{1,19}$/.test(replyTo)))
        return invalidRequest(
          res,
          'reply.in_reply_to_tweet_id',
          `The \`reply.in_reply_to_tweet_id\` field value [${String(replyTo)}] does not match ^[0-9]{1,19}$.`,
        );
      // X refuses a reply to a post that does not exist (or that the caller cannot see).
      if (typeof replyTo === 'string' && !tweets.has(replyTo))
        return problem(
          res,
          403,
          'Forbidden',
          'You attempted to reply to a Tweet that is deleted or not visible to you.',
        );
      const text = typeof body.text === 'string' ? body.text : '';
      const mediaIds = Array.isArray(body.media?.media_ids) ? body.media.media_ids.map(String) : [];
      if (text === '' && mediaIds.length === 0)
        return invalidRequest(res, 'text', 'text is required unless media is attached.');
      if (mediaIds.length > 4)
        return invalidRequest(
          res,
          'media.media_ids',
          'Your media IDs are invalid: a post may have a maximum of 4 items.',
        );
      const attached = mediaIds.map((id) => media.get(id));
      if (
        attached.some(
          (item) => !item || item.userId !== userId || (item.state !== undefined && item.state !== 'succeeded'),
        )
      ) {
        return invalidRequest(res, 'media.media_ids', 'Your media IDs are invalid.');
      }
      if (attached.length > 1 && attached.some((item) => !item?.category.endsWith('image'))) {
        return invalidRequest(res, 'media.media_ids', 'A post may have 4 images, or 1 GIF, or 1 video.');
      }
      if (weightedLength(text) > textLimitOf(subscription))
        return problem(res, 403, 'Forbidden', 'You are not permitted to perform this action.');
      if (text !== '' && byText.has(`${userId}\n${text}`)) {
        return problem(res, 403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
      }
      const tweet: XTweet = {
        id: snowflakeId(state.now()),
        userId,
        text,
        mediaIds,
        createdAt: new Date(state.now()).toISOString(),
        inReplyTo: typeof replyTo === 'string' ? replyTo : undefined,
      };
      tweets.set(tweet.id, tweet);
      addToTimeline(timelines, tweet);
      if (text !== '') byText.set(`${userId}\n${text}`, tweet.id);
      state.recordPost({
        network: 'x',
        id: tweet.id,
        account: userId,
        text,
        media: attached.map((item) => ({
          url: `media:${item!.id}`,
          kind: item!.category.endsWith('image') ? 'image' : 'video',
          ...(item!.altText === undefined ? {} : { alt_text: item!.altText }),
        })),
        options: tweet.inReplyTo === undefined ? {} : { in_reply_to_tweet_id: tweet.inReplyTo },
        url: `https://x.com/${usernameOf(userId)}/status/${tweet.id}`,
        created_at: tweet.createdAt,
      });
      sendRateHeaders(state, res, 'tweets.create', userId, 100);
      sendDailyHeaders(state, res, userId);
      markPostCreated(res, 'x');
      res.status(201).json({ data: { id: tweet.id, text, edit_history_tweet_ids: [tweet.id] } });
    },
  );

  router.get('/2/tweets/:id', gate, auth, (req, res) => {
    const { userId } = xCallerOf(res);
    sendRateHeaders(state, res, 'tweets.lookup', userId, 900);
    const id = String(req.params.id);
    const tweet = tweets.get(id);
    if (!tweet) {
      // Lookups answer 200 with only `errors` for a missing post (v2 partial-error format).
      return void res.json({
        errors: [
          {
            value: id,
            detail: `Could not find tweet with id: [${id}].`,
            title: 'Not Found Error',
            resource_type: 'tweet',
            parameter: 'id',
            resource_id: id,
            type: 'https://api.x.com/2/problems/resource-not-found',
          },
        ],
      });
    }
    const stored = state.metricsOf('x', tweet.id) ?? {};
    const fields = String(req.query['tweet.fields'] ?? req.query['post.fields'] ?? '').split(',');
    const publicMetrics = Object.fromEntries(
      METRIC_KEYS.map((key) => [key, typeof stored[key] === 'number' ? stored[key] : 0]),
    );
    res.json({
      data: {
        id: tweet.id,
        text: tweet.text,
        edit_history_tweet_ids: [tweet.id],
        ...(fields.includes('created_at') ? { created_at: tweet.createdAt } : {}),
        ...referencedTweets(tweet, fields),
        ...(fields.includes('public_metrics') ? { public_metrics: publicMetrics } : {}),
        ...(fields.includes('non_public_metrics')
          ? {
              non_public_metrics: {
                impression_count: publicMetrics.impression_count,
                url_link_clicks: 0,
                user_profile_clicks: 0,
              },
            }
          : {}),
      },
    });
  });
}
