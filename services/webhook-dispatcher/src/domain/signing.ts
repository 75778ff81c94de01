import { createHmac, randomBytes } from 'node:crypto';
import type { PayloadFormat } from '@svc/contracts';

/**
 * `whsec_` + 32 random bytes (base64url). The HMAC key is this whole string, prefix included
 * (docs/api-conventions.md, "Webhooks: payloads and signatures").
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/**
 * The signature headers of one attempt. `secrets` lists the current secret first, then the earlier
 * ones still inside their overlap windows (newest first): receivers holding any of them verify
 * (any value may match).
 * Shape A: `X-Svc-Signature: sha256=<hex>[,sha256=<hex>]`; Shape B: `Svc-Signature: t=<ts>,v1=<hex>[,v1=<hex>]`.
 */
export function signatureHeaders(
  format: PayloadFormat,
  secrets: readonly string[],
  timestamp: number,
  body: string,
): Record<string, string> {
  const signatures = secrets.map((secret) => hmacHex(secret, timestamp, body));
  if (format === 'legacy')
    return { 'Svc-Signature': [`t=${timestamp}`, ...signatures.map((hex) => `v1=${hex}`)].join(',') };
  return {
    'X-Svc-Signature': signatures.map((hex) => `sha256=${hex}`).join(','),
    'X-Svc-Timestamp': String(timestamp),
  };
}
