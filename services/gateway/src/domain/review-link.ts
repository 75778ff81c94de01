import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** What a review link grants: a look at, and one decision on, one version of one organization's draft. */
export interface ReviewGrant {
  orgId: string;
  postId: string;
  version: number;
  /** Seconds since the epoch. */
  expiresAt: number;
}

/**
 * Stateless review links: `<payload>.<signature>`, both base64url, the payload `{o, p, v, e}` (org,
 * post, version, expiry) and the signature HMAC-SHA256 over the payload's text. Nothing is stored:
 * an edit of the draft (its version changes) or the expiry invalidates the link, and rotating the
 * key invalidates them all.
 */
export class ReviewLinks {
  private readonly key: Buffer;

  constructor(options: { secret: string | undefined; pepper: string }) {
    this.key =
      options.secret === undefined
        ? Buffer.from(hkdfSync('sha256', options.pepper, Buffer.alloc(0), 'svc review links', 32))
        : Buffer.from(options.secret, 'utf8');
  }

  sign(grant: ReviewGrant): string {
    const payload = Buffer.from(
      JSON.stringify({ o: grant.orgId, p: grant.postId, v: grant.version, e: grant.expiresAt }),
    ).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The grant of a well-formed token with a valid signature (expired or not); undefined otherwise. */
  verify(token: string): ReviewGrant | undefined {
    const [payload, signature, extra] = token.split('.');
    if (payload === undefined || signature === undefined || extra !== undefined) return undefined;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(payload);
    // Constant time: the comparison must not tell how much of a forged signature was right.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const { o, p, v, e } = value;
      if (typeof o !== 'string' || typeof p !== 'string' || !Number.isInteger(v) || !Number.isInteger(e))
        return undefined;
      return { orgId: o, postId: p, version: v as number, expiresAt: e as number };
    } catch {
      return undefined;
    }
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }
}
