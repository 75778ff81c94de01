import { createHash, randomBytes } from 'node:crypto';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** An id like `usr_...`: the prefix and 26 base32 characters (130 random bits). */
export function newId(prefix: 'usr' | 'org' | 'inv' | 'key'): string {
  const bytes = randomBytes(26);
  let id = '';
  for (const byte of bytes) id += BASE32[byte & 31];
  return `${prefix}_${id}`;
}

/** A bearer secret (session or invite token): 256 random bits, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What is stored of a token: its SHA-256, hex. A 256-bit random token needs no slow hash. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
