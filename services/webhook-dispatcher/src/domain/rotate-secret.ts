import { notFound } from '@svc/errors';
import type { EndpointDeps } from './create-endpoint.ts';
import { generateSigningSecret } from './signing.ts';
import { toEndpointView } from './views.ts';

/**
 * A new signing secret, shown once. The one it replaces keeps signing (a second comma-separated
 * signature) for `overlapMs` (24 h), so receivers can switch without losing a delivery.
 */
export async function rotateSecret(deps: EndpointDeps & { overlapMs: number }, input: { orgId: string; id: string }) {
  const current = await deps.endpoints.find(input.orgId, input.id);
  if (current === null) throw notFound('The webhook endpoint');
  const previous = deps.secrets.open(current.id, 'current', current.secretCipher);
  const secret = generateSigningSecret();
  const row = await deps.endpoints.update(input.orgId, current.id, {
    secretCipher: deps.secrets.seal(current.id, 'current', secret),
    previousSecretCipher: deps.secrets.seal(current.id, 'previous', previous),
    previousSecretExpiresAt: new Date(Date.now() + deps.overlapMs),
  });
  if (row === null) throw notFound('The webhook endpoint');
  return { ...toEndpointView(row), signing_secret: secret };
}
