import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { safeEqual } from '@svc/crypto';
import { dashboardErrors } from '../domain/errors.ts';
import { csrfTokenOf, type CurrentSession, type IdentityDeps } from '../domain/identity.ts';
import { resolveSession } from '../domain/resolve-session.ts';
import type { SessionCookie } from './session-cookie.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';

export interface SignedIn {
  session: CurrentSession;
  /** The cookie's token, for the CSRF token and the session view; never logged or echoed. */
  token: string;
}

export function signedIn(res: Response): SignedIn {
  return res.locals.signedIn as SignedIn;
}

/**
 * Refuses a state-changing request whose `Origin` names another site. Browsers send Origin on every
 * cross-origin POST; with SameSite=Lax cookies this also covers the sign-in and sign-up forms, which
 * have no session (and so no CSRF token) yet.
 */
export function sameOrigin(publicUrl: string): RequestHandler {
  const expected = new URL(publicUrl).origin;
  return (req: Request, _res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (SAFE_METHODS.has(req.method) || origin === undefined || origin === expected) return next();
    next(dashboardErrors.foreignOrigin());
  };
}

/**
 * Requires a live session (401 otherwise), and on every state-changing request the session's CSRF
 * token in X-CSRF-Token, compared in constant time (403 otherwise).
 */
export function requireSession(
  deps: Pick<IdentityDeps, 'sessions' | 'organizations' | 'now'>,
  cookie: SessionCookie,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = cookie.read(req);
    if (token === undefined) return next(dashboardErrors.signInRequired());
    resolveSession(deps, token).then((session) => {
      if (session === null) return next(dashboardErrors.signInRequired());
      if (!SAFE_METHODS.has(req.method) && !safeEqual(req.get(CSRF_HEADER) ?? '', csrfTokenOf(token)))
        return next(dashboardErrors.csrfRejected());
      res.locals.signedIn = { session, token } satisfies SignedIn;
      next();
    }, next);
  };
}
