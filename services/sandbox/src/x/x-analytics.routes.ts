import { type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { requireXToken, xCallerOf } from './x-auth.ts';
import { invalidRequest, problem, rateLimitHeaders, xFaultRenderer } from './x-errors.ts';
import { X_STORES, type XTweet } from './x-records.ts';

const PUBLIC_KEYS = ['retweet_count', 'reply_count', 'like_count', 'quote_count', 'bookmark_count', 'impression_count'];
const PRIVATE_KEYS = ['url_link_clicks', 'user_profile_clicks', 'engagements'];
/** GET /2/tweets: 900 requests per 15 minutes per user (docs/networks.md §3.4), enforced here. */
export const X_LOOKUP_LIMIT = 900;
const WINDOW_MS = 900_000;
const THIRTY_DAYS = 30 * 86_400_000;

const numberOr0 = (value: unknown) => (typeof value === 'number' ? value : 0);

/**
 * Batch post lookup with metrics (docs/networks.md §3.5). `non_public_metrics` and `organic_metrics` are
 * owner-only and limited to posts up to 30 days old: for others X leaves the fields out and adds a
 * field-authorization error, as production does. The per-user window is enforced with a 429.
 */
export function registerXAnalytics(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['x'], xFaultRenderer());
  const auth = requireXToken(ctx);
  const tweets = state.store<XTweet>(X_STORES.tweets);
  const windows = state.store<{ start: number; count: number }>('x.lookup.windows');

  router.get('/2/tweets', gate, auth, (req, res) => {
    const { userId } = xCallerOf(res);
    const now = state.now();
    let window = windows.get(userId);
    if (!window || window.start + WINDOW_MS <= now) {
      window = { start: now, count: 0 };
      windows.set(userId, window);
    }
    window.count += 1;
    const reset = Math.ceil((window.start + WINDOW_MS) / 1000);
    rateLimitHeaders(res, X_LOOKUP_LIMIT, X_LOOKUP_LIMIT - window.count, reset);
    if (window.count > X_LOOKUP_LIMIT)
      return problem(res, 429, 'Too Many Requests', 'Too Many Requests', 'about:blank');
    const ids = String(req.query.ids ?? '')
      .split(',')
      .filter(Boolean);
    if (ids.length === 0 || ids.length > 100) return invalidRequest(res, 'ids', 'ids must hold 1 to 100 post ids.');
    const fields = String(req.query['tweet.fields'] ?? '').split(',');
    const data: object[] = [];
    const errors: object[] = [];
    for (const id of ids) {
      const tweet = tweets.get(id);
      if (!tweet) {
        errors.push({
          value: id,
          detail: `Could not find tweet with ids: [${id}].`,
          title: 'Not Found Error',
          resource_type: 'tweet',
          parameter: 'ids',
          resource_id: id,
          type: 'https://api.x.com/2/problems/resource-not-found',
        });
        continue;
      }
      const stored = state.metricsOf('x', id) ?? {};
      const publicMetrics = Object.fromEntries(PUBLIC_KEYS.map((key) => [key, numberOr0(stored[key])]));
      const ownerView = tweet.userId === userId && now - Date.parse(tweet.createdAt) <= THIRTY_DAYS;
      const privateMetrics = {
        impression_count: publicMetrics.impression_count,
        ...Object.fromEntries(PRIVATE_KEYS.map((key) => [key, numberOr0(stored[key])])),
      };
      for (const field of ['non_public_metrics', 'organic_metrics'].filter(
        (name) => fields.includes(name) && !ownerView,
      )) {
        errors.push({
          value: id,
          detail: `Sorry, you are not authorized to access '${field}' on the Tweet with ids: [${id}].`,
          title: 'Field Authorization Error',
          resource_type: 'tweet',
          field,
          resource_id: id,
          type: 'https://api.x.com/2/problems/not-authorized-for-field',
        });
      }
      data.push({
        id,
        text: tweet.text,
        edit_history_tweet_ids: [id],
        ...(fields.includes('created_at') ? { created_at: tweet.createdAt } : {}),
        ...(fields.includes('public_metrics') ? { public_metrics: publicMetrics } : {}),
        ...(fields.includes('non_public_metrics') && ownerView ? { non_public_metrics: privateMetrics } : {}),
        ...(fields.includes('organic_metrics') && ownerView
          ? {
              organic_metrics: {
                ...privateMetrics,
                like_count: publicMetrics.like_count,
                reply_count: publicMetrics.reply_count,
                retweet_count: publicMetrics.retweet_count,
              },
            }
          : {}),
      });
    }
    res.json({ ...(data.length > 0 ? { data } : {}), ...(errors.length > 0 ? { errors } : {}) });
  });
}
