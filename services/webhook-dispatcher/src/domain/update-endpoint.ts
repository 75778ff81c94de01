import type { WebhookEventType } from '@svc/contracts';
import { notFound } from '@svc/errors';
import type { EndpointRow } from '../data/endpoints.repository.ts';
import type { EndpointDeps } from './create-endpoint.ts';
import { assertReceiverUrl } from './endpoint-url.ts';
import { toEndpointView } from './views.ts';

/**
 * PATCH: `url`, `events`, `active`. `active: true` resumes a paused or disabled endpoint and clears its
 * failure streak (docs/api-conventions.md, "Webhooks: retries and auto-pause"); `active: false`
 * disables it. Paused and disabled endpoints are sent nothing new.
 */
export async function updateEndpoint(
  deps: Omit<EndpointDeps, 'secrets'>,
  input: {
    orgId: string;
    id: string;
    url?: string | undefined;
    events?: WebhookEventType[] | undefined;
    active?: boolean | undefined;
  },
) {
  const data: Parameters<typeof deps.endpoints.update>[2] = {};
  if (input.url !== undefined) data.url = await assertReceiverUrl(input.url, deps.urlRules);
  if (input.events !== undefined) data.events = [...new Set(input.events)];
  if (input.active === true)
    Object.assign(data, {
      status: 'active',
      failingSince: null,
      lastFailureAt: null,
      pausedAt: null,
    } satisfies Partial<EndpointRow>);
  if (input.active === false) data.status = 'disabled';
  const row = await deps.endpoints.update(input.orgId, input.id, data);
  if (row === null) throw notFound('The webhook endpoint');
  return toEndpointView(row);
}
