import { json, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { requireTtToken, ttCallerOf, usernameOf } from './tt-auth.ts';
import { tiktokFaultRenderer, ttError, ttOk } from './tt-errors.ts';
import { TT_STORES, type TtPublish, type TtVideo } from './tt-records.ts';
import { advancePublish } from './tt-status.ts';

const MAX_COUNT = 20;

/**
 * Display API `POST /v2/video/list/?fields=...` with `{max_count (<= 20), cursor}`: the user's public
 * videos, newest first; `cursor` is a creation time in ms, the next page holds older videos. TikTok
 * processes a post whether or not anyone polls its status, so a listing first lets the caller's
 * pending publishes finish (a post whose init answer was lost still appears, as it would on TikTok).
 */
export function registerTikTokList(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['tiktok'], tiktokFaultRenderer());
  const auth = requireTtToken(ctx);
  const videos = state.store<TtVideo>(TT_STORES.videos);
  const publishes = state.store<TtPublish>(TT_STORES.publishes);

  router.post('/v2/video/list/', json(), gate, auth, (req, res) => {
    if (!req.query.fields) return ttError(res, 400, 'invalid_params', 'fields is required.');
    const body = (req.body ?? {}) as { max_count?: unknown; cursor?: unknown };
    const max = body.max_count === undefined ? 10 : Number(body.max_count);
    if (!Number.isInteger(max) || max < 1 || max > MAX_COUNT)
      return ttError(res, 400, 'invalid_params', `max_count must be between 1 and ${MAX_COUNT}.`);
    const cursor = body.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(body.cursor);
    if (!Number.isFinite(cursor)) return ttError(res, 400, 'invalid_params', 'cursor must be a number.');
    const { openId } = ttCallerOf(res);
    for (const publish of publishes.values()) {
      if (publish.openId !== openId) continue;
      for (let step = 0; step < ctx.processingPolls + 2 && !publish.moderated; step += 1) advancePublish(ctx, publish);
    }
    const fields = String(req.query.fields).split(',');
    const mine = [...videos.values()]
      .filter((video) => video.openId === openId && video.createTime * 1000 < cursor)
      .sort((a, b) => b.createTime - a.createTime || b.id.localeCompare(a.id));
    const pageOf = mine.slice(0, max);
    const all = (video: TtVideo): Record<string, unknown> => ({
      id: video.id,
      title: video.title.slice(0, 150),
      create_time: video.createTime,
      share_url: `https://www.tiktok.com/@${usernameOf(openId)}/${video.kind}/${video.id}?utm_campaign=tt4d_open_api&utm_source=sandbox`,
    });
    ttOk(res, {
      videos: pageOf.map((video) =>
        Object.fromEntries(Object.entries(all(video)).filter(([key]) => fields.includes(key))),
      ),
      cursor: pageOf.length > 0 ? pageOf.at(-1)!.createTime * 1000 : cursor,
      has_more: mine.length > max,
    });
  });
}
