import { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type SandboxContext } from '../context.ts';
import { derivedId, hashOf } from '../state/ids.ts';
import { liError, tokenErrors } from './li-errors.ts';

/** The member id (`sub`) a subject acts as: alphanumeric like LinkedIn's, stable for BYOK tokens. */
export const memberIdOf = (subject: string) =>
  subject.startsWith('liuser:') ? subject.slice(7) : `m${hashOf(subject).slice(0, 9)}`;

export interface LiCaller {
  memberId: string;
  personUrn: string;
  token: string;
  /** Scopes granted to the token; undefined for a BYOK token the sandbox did not issue (granted all). */
  scopes: string[] | undefined;
}

/** Organizations a member administers in the sandbox: two pages derived from the member id. */
export const organizationsAdministeredBy = (memberId: string): string[] =>
  [1, 2].map((n) => `urn:li:organization:${derivedId(`${memberId}:org${n}`, 8, '7')}`);

export const hasScope = (caller: LiCaller, ...anyOf: string[]): boolean =>
  caller.scopes === undefined || anyOf.some((scope) => caller.scopes!.includes(scope));

/**
 * Whether the caller may post (or upload media) as `author`, as LinkedIn decides it: itself with
 * `w_member_social`; an organization with `w_organization_social`, and only one it administers
 * (posts-api "Permissions"). A BYOK token's grants and pages are unknown, so only its own person is checked.
 */
export function mayActAs(caller: LiCaller, author: unknown): boolean {
  if (typeof author !== 'string') return false;
  if (author.startsWith('urn:li:person:')) return author === caller.personUrn && hasScope(caller, 'w_member_social');
  if (!author.startsWith('urn:li:organization:')) return false;
  return (
    hasScope(caller, 'w_organization_social') &&
    (caller.scopes === undefined || organizationsAdministeredBy(caller.memberId).includes(author))
  );
}

export function requireLiToken(ctx: SandboxContext): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return tokenErrors.missing(res);
    const check = ctx.state.tokens.check('linkedin', token);
    if (check.status !== 'ok') return tokenErrors[check.status](res);
    const memberId = memberIdOf(check.subject);
    const caller: LiCaller = { memberId, personUrn: `urn:li:person:${memberId}`, token, scopes: check.record?.scopes };
    res.locals.liCaller = caller;
    next();
  };
}

export const liCallerOf = (res: Response) => res.locals.liCaller as LiCaller;

const MONTHS_SUPPORTED = 12;

/**
 * `/rest/*` requires `LinkedIn-Version: YYYYMM`; versions are supported about a year (docs/networks.md §4.2).
 */
export function requireVersion(now: () => number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const version = req.headers['linkedin-version'];
    if (typeof version !== 'string' || version === '') {
      return liError(
        res,
        400,
        'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        'VERSION_MISSING',
      );
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
