import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { hashOf } from '../state/ids.ts';
import { liError, tokenErrors } from './li-errors.ts';

/** The member id (`sub`) a subject acts as: alphanumeric like LinkedIn's, stable for BYOK tokens. */
export const memberIdOf = (subject: string) => (subject.startsWith('liuser:') ? subject.slice(7) : `m${hashOf(subject).slice(0, 9)}`);

export interface LiCaller {
  memberId: string;
  personUrn: string;
  token: string;
}

export function requireLiToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return tokenErrors.missing(res);
    const check = ctx.state.tokens.check('linkedin', token);
    if (check.status !== 'ok') return tokenErrors[check.status](res);
    const memberId = memberIdOf(check.subject);
    const caller: LiCaller = { memberId, personUrn: `urn:li:person:${memberId}`, token };
    res.locals.liCaller = caller;
    next();
  };
}

export const liCallerOf = (res: Response) => res.locals.liCaller as LiCaller;

const MONTHS_SUPPORTED = 12;

/**
 * `/rest/*` requires `LinkedIn-Version: YYYYMM`; versions are supported about a year (networks.md §4.2).
 */
export function requireVersion(now: () => number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const version = req.headers['linkedin-version'];
    if (typeof version !== 'string' || version === '') {
      return liError(res, 400, 'A version must be present. Please specify a version by adding the LinkedIn-Version header.', 'VERSION_MISSING');
    }
    const match = /^(\d{4})(\d{2})(?:\.\d{2})?$/.exec(version);
    const date = new Date(now());
    const current = date.getUTCFullYear() * 12 + date.getUTCMonth();
    const requested = match ? Number(match[1]) * 12 + Number(match[2]) - 1 : Number.NaN;
    if (!match || requested > current || current - requested > MONTHS_SUPPORTED) {
      return liError(res, 426, `Requested version ${version} is not active`, 'NONEXISTENT_VERSION');
    }
    next();
  };
}
