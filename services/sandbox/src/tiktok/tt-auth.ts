import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { hashOf } from '../state/ids.ts';
import { bearerOf, tokenInvalid, ttError } from './tt-errors.ts';

/** TikTok's `open_id` for a subject (stable for BYOK tokens). */
export const openIdOf = (subject: string) =>
  subject.startsWith('ttuser:') ? subject.slice(7) : `-000${hashOf(subject)}`;
export const usernameOf = (openId: string) =>
  `sandbox.${openId
    .replace(/[^a-z0-9]/gi, '')
    .slice(-8)
    .toLowerCase()}`;

export interface TtCaller {
  openId: string;
  token: string;
  /** Scopes granted to the token; undefined for a BYOK token the sandbox did not issue (granted all). */
  scopes: string[] | undefined;
}

export const ttHasScope = (caller: TtCaller, scope: string): boolean =>
  caller.scopes === undefined || caller.scopes.includes(scope);

/** 401 scope_not_authorized, as TikTok answers a call the user did not grant the scope for (tiktok-api-v2-error-handling). */
export const scopeNotAuthorized = (res: Response) =>
  ttError(
    res,
    401,
    'scope_not_authorized',
    'The user did not authorize the scope required for completing this request.',
  );

/** Fields of /v2/user/info/ by the scope each needs (developers.tiktok.com/doc/tiktok-api-v2-get-user-info; username moved to user.info.profile in 2024). */
export const USER_FIELD_SCOPES: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  username: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
};

export function requireTtToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = bearerOf(req);
    const check = ctx.state.tokens.check('tiktok', token);
    if (check.status !== 'ok' || !token) return tokenInvalid(res);
    const caller: TtCaller = { openId: openIdOf(check.subject), token, scopes: check.record?.scopes };
    res.locals.ttCaller = caller;
    next();
  };
}

export const ttCallerOf = (res: Response) => res.locals.ttCaller as TtCaller;
