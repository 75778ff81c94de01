import { AppError, notFound } from '@svc/errors';
import type { EndpointRow, PreviousSecret } from '../data/endpoints.repository.ts';
import type { EndpointDeps } from './create-endpoint.ts';
import { generateSigningSecret } from './signing.ts';
import { toEndpointView } from './views.ts';

/** Earlier secrets signing at once, at most: each adds a signature to every delivery. */
export const MAX_PREVIOUS_SECRETS = 3;

/**
 * A new signing secret, shown once. The one it replaces keeps signing (one more comma-separated
 * signature) for `overlapMs` (24 h), so receivers can switch without losing a delivery; an earlier
 * one still inside its own overlap keeps signing until that ends. With `MAX_PREVIOUS_SECRETS` still
 * signing, another rotation is refused (409) rather than cutting the oldest short.
 */
export async function rotateSecret(deps: EndpointDeps & { overlapMs: number }, input: { orgId: string; id: string }) {
  const secret = generateSigningSecret();
  const row = await deps.endpoints.updateLocked(input.orgId, input.id, (current) => ({
    secretCipher: deps.secrets.seal(current.orgId, current.id, 'current', secret),
    previousSecrets: [
      {
        cipher: deps.secrets.seal(
          current.orgId,
          current.id,
          'previous',
          deps.secrets.open(current.orgId, current.id, 'current', current.secretCipher),
        ),
        expires_at: new Date(Date.now() + deps.overlapMs).toISOString(),
      },
      ...stillSigning(current),
    ],
  }));
  if (row === null) throw notFound('The webhook endpoint');
  return { ...toEndpointView(row), signing_secret: secret };
}

function stillSigning(current: EndpointRow): PreviousSecret[] {
  const now = Date.now();
  const signing = current.previousSecrets.filter((previous) => new Date(previous.expires_at).getTime() > now);
  if (signing.length >= MAX_PREVIOUS_SECRETS) {
    const ends = signing.map((previous) => new Date(previous.expires_at).getTime());
    const message = `${signing.length} earlier signing secrets are still signing; the next one stops at ${new Date(Math.min(...ends)).toISOString()}, rotate again after that.`;
    throw new AppError('conflict', message, {
      details: [{ path: '/params/webhook_id', message, rule: 'max_previous_secrets', limit: MAX_PREVIOUS_SECRETS }],
    });
  }
  return signing;
}
