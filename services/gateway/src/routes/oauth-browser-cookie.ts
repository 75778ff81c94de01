import { parse, serialize } from 'cookie';

/** Flow-binding cookies carry this prefix; the accounts service picks the one of the flow it completes. */
const PREFIX = 'svc_oauth_';

/**
 * The cookie that binds an OAuth flow to the browser that started it: HttpOnly (no script reads it),
 * SameSite=Lax (sent on the network's top-level redirect back to us, not on cross-site subrequests),
 * scoped to the callback path, Secure whenever the API is served over https.
 */
export function flowCookieHeader(
  cookie: { name: string; value: string; max_age_seconds: number },
  provider: string,
  secure: boolean,
): string {
  return serialize(cookie.name, cookie.value, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: `/v1/oauth/${provider}/callback`,
    maxAge: cookie.max_age_seconds,
  });
}

/** Clears the flow cookies the callback received: each works once. */
export function clearFlowCookies(names: readonly string[], provider: string, secure: boolean): string[] {
  return names.map((name) =>
    serialize(name, '', { httpOnly: true, sameSite: 'lax', secure, path: `/v1/oauth/${provider}/callback`, maxAge: 0 }),
  );
}

/** The flow cookies of a request (at most 20, by name). */
export function flowCookies(header: string | string[] | undefined): Record<string, string> {
  if (typeof header !== 'string') return {};
  const entries = Object.entries(parse(header)).filter(
    (entry): entry is [string, string] => entry[0].startsWith(PREFIX) && entry[1] !== undefined,
  );
  return Object.fromEntries(entries.slice(0, 20));
}

/** The confirmation page's nonce cookie (routes/oauth-handoff.routes.ts). */
const HANDOFF_COOKIE = 'svc_handoff';
const NONCE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The nonce a hand-off's confirmation page gives the browser, which its form's anti-forgery value is
 * bound to: SameSite=Strict, so a form posted from another site never carries it, HttpOnly, and
 * scoped to the one link's path.
 */
export function handoffCookieHeader(nonce: string, code: string, maxAgeSeconds: number, secure: boolean): string {
  return serialize(HANDOFF_COOKIE, nonce, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: `/v1/oauth/handoff/${code}`,
    maxAge: maxAgeSeconds,
  });
}

export function clearHandoffCookie(code: string, secure: boolean): string {
  return handoffCookieHeader('', code, 0, secure);
}

/** The confirmation nonce a request carries, if well-formed. */
export function handoffNonce(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const nonce = parse(header)[HANDOFF_COOKIE];
  return nonce !== undefined && NONCE.test(nonce) ? nonce : undefined;
}
