import { SignJWT } from 'jose';
import type { KeyRing } from './key-ring.ts';

/** The audience of every dashboard JWT: the gateway's JWT_AUDIENCE. */
export const JWT_AUDIENCE = 'svc-api';

/** A cached token is replaced once it has less than this left, so a forwarded request never carries one about to expire. */
const RENEW_BEFORE_MS = 60_000;
const CACHE_MAX = 10_000;

export interface TokenMinterOptions {
  keys: KeyRing;
  issuer: string;
  ttlSeconds: number;
  now?: () => number;
}

/**
 * Mints the JWTs `/api/*` forwards with (`sub`, `org_id`, `iss`, `aud`, `exp` <= 15 minutes), cached
 * per user and organization until a minute before they expire: the gateway remembers a token it
 * verified, so reusing it saves both sides a signature.
 */
export class TokenMinter {
  private readonly cache = new Map<string, { token: string; renewAt: number }>();
  private readonly now: () => number;

  constructor(private readonly options: TokenMinterOptions) {
    this.now = options.now ?? Date.now;
  }

  async tokenFor(userId: string, orgId: string): Promise<string> {
    const key = `${userId} ${orgId}`;
    const hit = this.cache.get(key);
    if (hit !== undefined && this.now() < hit.renewAt) return hit.token;
    const { kid, privateKey } = await this.options.keys.active();
    const issuedAt = Math.floor(this.now() / 1000);
    const expiresAt = issuedAt + this.options.ttlSeconds;
    const token = await new SignJWT({ org_id: orgId })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.options.issuer)
      .setAudience(JWT_AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(privateKey);
    this.cache.delete(key);
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { token, renewAt: expiresAt * 1000 - RENEW_BEFORE_MS });
    return token;
  }

  /** Forgets the user's tokens (sign-out, removal): the next request mints afresh. */
  forget(userId: string): void {
    for (const key of this.cache.keys()) if (key.startsWith(`${userId} `)) this.cache.delete(key);
  }
}
