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

/** X's epoch for its ids (2010-11-04T01:42:54.657Z). */
const X_EPOCH_MS = 1_288_834_974_657n;
let lastSnowflake = 0n;

/**
 * A post id as X makes them (Snowflake): the milliseconds since X's epoch above 22 bits of machine
 * and sequence, so ids made later are larger, 19 digits today. The low bits are random, and an id
 * that would not be larger than the last one made is the last plus one: ids never repeat and never
 * go back.
 */
export function snowflakeId(nowMs: number): string {
  const fresh = ((BigInt(nowMs) - X_EPOCH_MS) << 22n) | BigInt(randomBytes(2).readUInt16BE(0));
  lastSnowflake = fresh > lastSnowflake ? fresh : lastSnowflake + 1n;
  return lastSnowflake.toString();
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
