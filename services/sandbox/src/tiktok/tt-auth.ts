import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { hashOf } from '../state/ids.ts';
import { bearerOf, tokenInvalid } from './tt-errors.ts';

/** TikTok's `open_id` for a subject (stable for BYOK tokens). */
export const openIdOf = (subject: string) => (subject.startsWith('ttuser:') ? subject.slice(7) : `-000${hashOf(subject)}`);
export const usernameOf = (openId: string) => `sandbox.${openId.replace(/[^a-z0-9]/gi, '').slice(-8).toLowerCase()}`;

export interface TtCaller {
  openId: string;
  token: string;
}

export function requireTtToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = bearerOf(req);
    const check = ctx.state.tokens.check('tiktok', token);
    if (check.status !== 'ok' || !token) return tokenInvalid(res);
    const caller: TtCaller = { openId: openIdOf(check.subject), token };
    res.locals.ttCaller = caller;
    next();
  };
}

export const ttCallerOf = (res: Response) => res.locals.ttCaller as TtCaller;
