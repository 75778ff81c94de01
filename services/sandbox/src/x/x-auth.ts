import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { derivedId } from '../state/ids.ts';
import { bearer, unauthorized } from './x-errors.ts';

/** The X user id a subject acts as (numeric, stable for BYOK tokens). */
export const xUserIdOf = (subject: string) => (subject.startsWith('xuser:') ? subject.slice(6) : derivedId(subject, 19, '1'));

export interface XCaller {
  userId: string;
  token: string;
  /** X's user field `subscription_type`; a BYOK token starting `premium_` acts for a Premium subscriber (sandbox convention). */
  subscription: 'Premium' | 'None';
}

export function requireXToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = bearer(req);
    const check = ctx.state.tokens.check('x', token);
    if (check.status !== 'ok' || !token) return unauthorized(res);
    const caller: XCaller = { userId: xUserIdOf(check.subject), token, subscription: token.startsWith('premium_') ? 'Premium' : 'None' };
    res.locals.xCaller = caller;
    next();
  };
}

export const xCallerOf = (res: Response) => res.locals.xCaller as XCaller;
