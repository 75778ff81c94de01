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
