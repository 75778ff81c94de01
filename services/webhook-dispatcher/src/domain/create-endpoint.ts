import { randomUUID } from 'node:crypto';
import type { PayloadFormat, WebhookEventType } from '@svc/contracts';
import { AppError } from '@svc/errors';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import { assertReceiverUrl, type UrlRules } from './endpoint-url.ts';
import type { SecretBox } from './secrets.ts';
import { generateSigningSecret } from './signing.ts';
import { toEndpointView } from './views.ts';

export interface EndpointDeps {
  endpoints: EndpointsRepository;
  secrets: SecretBox;
  urlRules: UrlRules;
  /** Endpoints one organization may have (WEBHOOK_MAX_ENDPOINTS_PER_ORG). */
  maxEndpointsPerOrg: number;
}

/**
 * Registers an endpoint; the reply is the only time its signing secret is shown. An organization has
 * at most `maxEndpointsPerOrg` (each one multiplies every event into a delivery): past it, 409.
 */
export async function createEndpoint(
  deps: EndpointDeps,
  input: { orgId: string; url: string; events: WebhookEventType[]; payloadFormat: PayloadFormat },
) {
  const url = await assertReceiverUrl(input.url, deps.urlRules);
  const id = randomUUID();
  const secret = generateSigningSecret();
  const row = await deps.endpoints.create(
    {
      id,
      orgId: input.orgId,
      url,
      events: [...new Set(input.events)],
      payloadFormat: input.payloadFormat,
      secretCipher: deps.secrets.seal(input.orgId, id, 'current', secret),
    },
    deps.maxEndpointsPerOrg,
  );
  if (row === 'full') {
    const message = `An organization can have at most ${deps.maxEndpointsPerOrg} webhook endpoints; delete one first.`;
    throw new AppError('conflict', message, {
      details: [{ path: '/body', message, rule: 'max_endpoints', limit: deps.maxEndpointsPerOrg }],
    });
  }
  return { ...toEndpointView(row), signing_secret: secret };
}
