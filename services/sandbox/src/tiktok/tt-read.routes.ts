import { json, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import {
  requireTtToken,
  scopeNotAuthorized,
  ttCallerOf,
  ttHasScope,
  usernameOf,
  USER_FIELD_SCOPES,
} from './tt-auth.ts';
import { tiktokFaultRenderer, ttError, ttOk } from './tt-errors.ts';
import { TT_STORES, type TtVideo } from './tt-records.ts';

const COUNTS = ['like_count', 'comment_count', 'share_count', 'view_count'];

/** Display API: user info and video query (docs/networks.md §5.1, §5.5). */
export function registerTikTokReads(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['tiktok'], tiktokFaultRenderer());
  const auth = requireTtToken(ctx);
  const videos = state.store<TtVideo>(TT_STORES.videos);

  router.get('/v2/user/info/', gate, auth, (req, res) => {
    const { openId } = ttCallerOf(res);
    const fields = String(req.query.fields ?? '').split(',');
    const user: Record<string, unknown> = {
      open_id: openId,
      union_id: `u${openId.slice(4)}`,
      avatar_url: `https://p16-sign.tiktokcdn.com/${openId}.jpeg`,
      display_name: `Sandbox ${openId.slice(-4)}`,
      username: usernameOf(openId),
    };
    if (!req.query.fields) return ttError(res, 400, 'invalid_params', 'fields is required.');
    const caller = ttCallerOf(res);
    if (fields.some((field) => USER_FIELD_SCOPES[field] !== undefined && !ttHasScope(caller, USER_FIELD_SCOPES[field])))
      return scopeNotAuthorized(res);
    ttOk(res, { user: Object.fromEntries(Object.entries(user).filter(([key]) => fields.includes(key))) });
  });

  router.post('/v2/video/query/', json(), gate, auth, (req, res) => {
    if (!ttHasScope(ttCallerOf(res), 'video.list')) return scopeNotAuthorized(res);
    const ids = (req.body as { filters?: { video_ids?: unknown } } | undefined)?.filters?.video_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > 20)
      return ttError(res, 400, 'invalid_params', 'filters.video_ids must hold 1 to 20 ids.');
    const fields = String(req.query.fields ?? 'id').split(',');
    const { openId } = ttCallerOf(res);
    const found = ids.map((id) => videos.get(String(id))).filter((video): video is TtVideo => video?.openId === openId);
    ttOk(res, {
      videos: found.map((video) => {
        const stored = state.metricsOf('tiktok', video.id) ?? {};
        const all: Record<string, unknown> = {
          id: video.id,
          title: video.title.slice(0, 150),
          create_time: video.createTime,
          share_url: `https://www.tiktok.com/@${usernameOf(openId)}/${video.kind}/${video.id}?utm_campaign=tt4d_open_api&utm_source=sandbox`,
          ...Object.fromEntries(COUNTS.map((key) => [key, typeof stored[key] === 'number' ? stored[key] : 0])),
        };
        return Object.fromEntries(Object.entries(all).filter(([key]) => fields.includes(key)));
      }),
    });
  });
}
