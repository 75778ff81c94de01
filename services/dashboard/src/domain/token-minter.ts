import { SignJWT } from 'jose';
import type { KeyRing } from './key-ring.ts';

/** The audience of every dashboard JWT: the gateway's JWT_AUDIENCE. */
export const JWT_AUDIENCE = 'svc-api';

/** A cached token is replaced once it has less than this left, so a forwarded request never carries one about to expire. */
const RENEW_BEFORE_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * The gateway refuses a whole token whose `org_name` is not 1 to 100 characters (code points)
 * without control characters, while an organization's name here may be longer (120, or an email
 * address's "<email>'s organization") and is not filtered: the claim is made to fit.
 */
const ORG_NAME_MAX = 100;

/**
 * The `org_name` claim for an organization's display name: control characters become spaces, the
 * ends are trimmed, and a name past 100 characters is cut to 99 and an ellipsis. Undefined when
 * nothing is left (the claim is optional; the gateway then shows the organization's id alone).
 */
export function orgNameClaim(name: string | null | undefined): string | undefined {
  const cleaned = (name ?? '').replace(/\p{Cc}/gu, ' ').trim();
  if (cleaned === '') return undefined;
  const chars = [...cleaned];
  return chars.length <= ORG_NAME_MAX ? cleaned : `${chars.slice(0, ORG_NAME_MAX - 1).join('')}…`;
}

export interface TokenMinterOptions {
  keys: Pick<KeyRing, 'active'>;
  issuer: string;
  ttlSeconds: number;
  /** The organization's display name (null: unknown), read only when a token is minted. */
  orgName: (orgId: string) => Promise<string | null>;
  now?: () => number;
}

/**
 * Mints the JWTs `/api/*` forwards with (`sub`, `org_id`, `org_name`, `iss`, `aud`, `exp` <= 15
 * minutes), cached per user and organization until a minute before they expire: the gateway
 * remembers a token it verified, so reusing it saves both sides a signature, and the organization's
 * name is read once per token rather than once per request. `org_name` is what the gateway's pages
 * show people (the OAuth hand-off page names the organization that will receive an account).
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
    const [{ kid, privateKey }, name] = await Promise.all([this.options.keys.active(), this.options.orgName(orgId)]);
    const orgName = orgNameClaim(name);
    const issuedAt = Math.floor(this.now() / 1000);
    const expiresAt = issuedAt + this.options.ttlSeconds;
    const token = await new SignJWT({ org_id: orgId, ...(orgName === undefined ? {} : { org_name: orgName }) })
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
