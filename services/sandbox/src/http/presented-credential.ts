import { type Request } from 'express';

/** Parameters that carry a user's token: Graph's `access_token`, and what token endpoints exchange. */
const TOKEN_PARAMETERS = ['access_token', 'refresh_token', 'fb_exchange_token'] as const;

const paramOf = (source: unknown, name: string): string | undefined => {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * The user credential a call presents, wherever its network puts it: `Authorization: Bearer` (X,
 * LinkedIn, TikTok, Graph) or `OAuth` (Graph), Graph's `access_token` parameter, or the token a token
 * endpoint is asked to renew or exchange. Client credentials (`Authorization: Basic`, `client_secret`)
 * are not a user's and are never returned.
 */
export function presentedCredential(req: Request): string | undefined {
  const header = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (header !== undefined) return header;
  for (const name of TOKEN_PARAMETERS) {
    const value = paramOf(req.query, name) ?? paramOf(req.body, name);
    if (value !== undefined) return value;
  }
  return undefined;
}
