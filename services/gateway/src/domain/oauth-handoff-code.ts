import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * A hand-off code: `<expiry in Unix seconds, base 36>.<32 random bytes, base64url>`. The random part
 * (256 bits) is what makes it unguessable; the expiry is readable so that an expired link is told
 * apart from an unknown one without keeping anything past its expiry. Changing the expiry changes
 * the code, which then names nothing.
 */
const CODE = /^([0-9a-z]{1,10})\.([A-Za-z0-9_-]{43})$/;

export function newHandoffCode(expiresAt: Date): string {
  return `${Math.ceil(expiresAt.getTime() / 1000).toString(36)}.${randomBytes(32).toString('base64url')}`;
}

/** The expiry a well-formed code carries; undefined for anything else (a mangled or made-up link). */
export function handoffCodeExpiry(code: string): Date | undefined {
  const match = CODE.exec(code);
  return match === null ? undefined : new Date(parseInt(match[1]!, 36) * 1000);
}

/** The record's key in storage: the code itself is never stored, so a read of Redis yields no link. */
export const handoffId = (code: string): string => createHash('sha256').update(code).digest('hex');

const keyOf = (code: string, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', code, Buffer.alloc(0), `svc oauth handoff ${purpose}`, 32));

/**
 * Seals a record with a key derived from the code (AES-256-GCM, bound to its id): what Redis holds
 * (the flow's cookie, the authorize URL) is useless without the link, which only its holder has.
 */
export function sealHandoff(code: string, record: object): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(code, 'record'), iv);
  cipher.setAAD(Buffer.from(handoffId(code)));
  const body = Buffer.concat([cipher.update(JSON.stringify(record), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The record sealed for this code, or undefined when it does not open (not sealed for this code). */
export function openHandoff(code: string, sealed: string): unknown {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 29) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(code, 'record'), bytes.subarray(0, 12), {
      authTagLength: 16,
    });
    decipher.setAAD(Buffer.from(handoffId(code)));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The anti-forgery value of the confirmation form: an HMAC, keyed by the code, of the nonce the
 * confirmation page put in the browser's cookie. The POST must carry both, so it came from a browser
 * that was shown the page for this code (a cross-site form cannot send the SameSite=Strict cookie).
 */
export const confirmValue = (code: string, nonce: string): string =>
  createHmac('sha256', keyOf(code, 'confirm')).update(nonce).digest('base64url');

export function confirmValueMatches(code: string, nonce: string | undefined, value: string | undefined): boolean {
  if (nonce === undefined || value === undefined) return false;
  const expected = Buffer.from(confirmValue(code, nonce));
  const given = Buffer.from(value);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export const newConfirmNonce = (): string => randomBytes(32).toString('base64url');
