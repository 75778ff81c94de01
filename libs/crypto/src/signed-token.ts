import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 over `data`, hex. */
export function hmacHex(key: string | Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/** Constant-time comparison of two strings (false when lengths differ, without leaking where). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A compact signed token: base64url(JSON payload) + "." + base64url(HMAC). Used where a value must
 * survive a round trip through a third party unaltered (OAuth `state`). Not encrypted: put no secret in it.
 */
export function signToken(payload: Record<string, unknown>, key: string): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The payload when the signature matches, otherwise undefined. */
export function verifyToken(token: string, key: string): Record<string, unknown> | undefined {
  const [body, signature, ...rest] = token.split('.');
  if (body === undefined || signature === undefined || rest.length > 0) return undefined;
  const expected = createHmac('sha256', key).update(body).digest('base64url');
  if (!safeEqual(signature, expected)) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
