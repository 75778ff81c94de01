// Checks that a webhook delivery came from the API (docs/webhooks.md, "Verifying a delivery"), in both
// shapes: HMAC-SHA256 keyed with the whole signing secret over `<timestamp>.<raw body>`. WebCrypto's
// HMAC verify compares in constant time, and only fetch-era globals are used, so it runs in Node 20+,
// browsers, and edge runtimes alike.
import { SvcWebhookVerificationError } from '../errors.ts';

/** Shape A (`payload_format: "envelope"`). */
export interface WebhookEnvelopeEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Shape B (`payload_format: "legacy"`): one body per target account. */
export interface LegacyWebhookEvent {
  event_type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export type WebhookEvent = WebhookEnvelopeEvent | LegacyWebhookEvent;

export function isLegacyWebhookEvent(event: WebhookEvent): event is LegacyWebhookEvent {
  return 'event_type' in event;
}

/** Request headers as a Headers object or as Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Largest distance between the signing time and now (default 300 s, as docs/webhooks.md advises). */
  toleranceSeconds?: number;
  /** Now, in Unix seconds (default: the clock). */
  nowSeconds?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  // Any Headers-like object (of this realm's fetch or another's), else Node's `req.headers`.
  if (typeof headers.get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry.join(',') : entry;
}

/** The timestamp and candidate signatures (hex) of either shape. */
function signatureOf(headers: WebhookHeaders): { timestamp: string | undefined; signatures: string[] } {
  const shapeA = header(headers, 'x-svc-signature');
  if (shapeA !== undefined) {
    const signatures = shapeA.split(',').map((part) => part.trim());
    return {
      timestamp: header(headers, 'x-svc-timestamp')?.trim(),
      signatures: signatures.filter((part) => part.startsWith('sha256=')).map((part) => part.slice(7)),
    };
  }
  const shapeB = header(headers, 'svc-signature');
  if (shapeB !== undefined) {
    const parts = shapeB.split(',').map((part) => part.trim());
    return {
      timestamp: parts.find((part) => part.startsWith('t='))?.slice(2),
      signatures: parts.filter((part) => part.startsWith('v1=')).map((part) => part.slice(3)),
    };
  }
  throw new SvcWebhookVerificationError(
    'missing_signature',
    'The request has no X-Svc-Signature or Svc-Signature header.',
  );
}

function hexBytes(hex: string): Uint8Array | undefined {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined;
  return Uint8Array.from({ length: 32 }, (_, index) => parseInt(hex.slice(index * 2, index * 2 + 2), 16));
}

const encoder = new TextEncoder();

/**
 * Verifies a delivery and returns its parsed body. `rawBody` must be the bytes exactly as received
 * (read it before any JSON parsing). Several secrets may be given (during a rotation, the new and the
 * old), and the header may carry several signatures: any secret matching any signature passes.
 * Throws SvcWebhookVerificationError (`reason` says why) for a missing or malformed header, a
 * timestamp outside the tolerance, no matching signature, or a body that is not JSON.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secretOrSecrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const { timestamp, signatures } = signatureOf(headers);
  if (timestamp === undefined || !/^\d+$/.test(timestamp))
    throw new SvcWebhookVerificationError('malformed_signature', 'The signature has no valid timestamp.');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new SvcWebhookVerificationError(
      'stale_timestamp',
      `The delivery was signed ${now - Number(timestamp)} s from now, beyond the tolerance of ${tolerance} s.`,
    );
  const candidates = signatures.map(hexBytes).filter((bytes) => bytes !== undefined);
  if (candidates.length === 0)
    throw new SvcWebhookVerificationError('malformed_signature', 'The signature header carries no valid signature.');

  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.byteLength + body.byteLength);
  signed.set(prefix);
  signed.set(body, prefix.byteLength);

  const secrets = typeof secretOrSecrets === 'string' ? [secretOrSecrets] : secretOrSecrets;
  let matched = false;
  for (const secret of secrets) {
    const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'verify',
    ]);
    for (const candidate of candidates)
      if (await crypto.subtle.verify('HMAC', key, candidate as Uint8Array<ArrayBuffer>, signed)) matched = true;
  }
  if (!matched)
    throw new SvcWebhookVerificationError('signature_mismatch', 'No signature matches any of the given secrets.');

  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)) as WebhookEvent;
  } catch {
    throw new SvcWebhookVerificationError('invalid_body', 'The signed body is not JSON.');
  }
}
