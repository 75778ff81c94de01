import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { derivedId } from '../state/ids.ts';
import { bearer, problem, unauthorized } from './x-errors.ts';

/** The X user id a subject acts as (numeric, stable for BYOK tokens). */
export const xUserIdOf = (subject: string) =>
  subject.startsWith('xuser:') ? subject.slice(6) : derivedId(subject, 19, '1');

export interface XCaller {
  userId: string;
  token: string;
  /** X's user field `subscription_type`; a BYOK token starting `premium_` acts for a Premium subscriber (sandbox convention). */
  subscription: 'Premium' | 'None';
  /** Scopes granted to the token; undefined for a BYOK token the sandbox did not issue (granted all). */
  scopes: string[] | undefined;
}

/**
 * The OAuth 2.0 scopes an endpoint needs (openapi.json `security`): without them X answers a bare
 * 403 "Forbidden" problem (recorded in plhery/node-twitter-api-v2#265; /2/users/me needs tweet.read
 * as well as users.read, florianmartens/passport-twitter-oauth2.0#1).
 */
export function requireXScopes(...needed: string[]): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    const { scopes } = xCallerOf(res);
    if (scopes !== undefined && !needed.every((scope) => scopes.includes(scope)))
      return problem(res, 403, 'Forbidden', 'Forbidden');
    next();
  };
}

export function requireXToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = bearer(req);
    const check = ctx.state.tokens.check('x', token);
    if (check.status !== 'ok' || !token) return unauthorized(res);
    const caller: XCaller = {
      userId: xUserIdOf(check.subject),
      token,
      subscription: token.startsWith('premium_') ? 'Premium' : 'None',
      scopes: check.record?.scopes,
    };
    res.locals.xCaller = caller;
    next();
  };
}

export const xCallerOf = (res: Response) => res.locals.xCaller as XCaller;
