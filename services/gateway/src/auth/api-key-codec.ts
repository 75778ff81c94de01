import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PREFIX = 'svc_';
const BODY_LENGTH = 40;
/** The lookup handle: `svc_` and the first 8 random characters. Not secret; shown in listings. */
const LOOKUP_LENGTH = KEY_PREFIX.length + 8;
const KEY_SHAPE = /^svc_[0-9A-Za-z]{32,}$/;

export function generateApiKey(): { key: string; prefix: string } {
  let body = '';
  // randomInt draws uniformly (no modulo bias), unlike mapping random bytes onto 62 characters.
  for (let i = 0; i < BODY_LENGTH; i += 1) body += BASE62[randomInt(BASE62.length)];
  const key = `${KEY_PREFIX}${body}`;
  return { key, prefix: key.slice(0, LOOKUP_LENGTH) };
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(KEY_PREFIX);
}

/** The prefix to look the key up by, or undefined when the token cannot be one of our keys. */
export function apiKeyPrefix(token: string): string | undefined {
  return KEY_SHAPE.test(token) ? token.slice(0, LOOKUP_LENGTH) : undefined;
}

export function hashApiKey(key: string, pepper: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

export function apiKeyMatches(key: string, storedHash: string, pepper: string): boolean {
  const actual = Buffer.from(hashApiKey(key, pepper), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
