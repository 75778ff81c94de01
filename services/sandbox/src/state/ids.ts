import { createHash, randomBytes } from 'node:crypto';

/** A random decimal string of `length` digits not starting with 0, like the networks' numeric ids. */
export function numericId(length: number, prefix = ''): string {
  let digits = prefix;
  while (digits.length < length) {
    const byte = randomBytes(1)[0]!;
    if (byte < 250) digits += String(byte % 10);
  }
  if (digits.startsWith('0')) digits = `1${digits.slice(1)}`;
  return digits;
}

/** A stable decimal id derived from a seed: BYOK tokens always map to the same account. */
export function derivedId(seed: string, length: number, prefix = ''): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  let digits = prefix + BigInt(`0x${hex}`).toString().replace(/^0+/, '');
  if (digits.startsWith('0')) digits = `1${digits.slice(1)}`;
  return digits.slice(0, length);
}

export function randomToken(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function hashOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}
