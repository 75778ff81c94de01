import { conflict, notFound } from '@svc/errors';
import type { DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import type { AttemptCommands } from './attempt-commands.ts';
import { toDeliveryView } from './views.ts';

/**
 * Sends a delivery of the last `windowMs` (14 days) again, with the same body and `X-Svc-Delivery`
 * so receivers can deduplicate. The attempt runs in the background (202); it shows in the list.
 */
export async function replayDelivery(
  deps: {
    endpoints: EndpointsRepository;
    deliveries: DeliveriesRepository;
    commands: AttemptCommands;
    windowMs: number;
    attemptsListed: number;
  },
  input: { orgId: string; endpointId: string; deliveryId: string },
) {
  const endpoint = await deps.endpoints.find(input.orgId, input.endpointId);
  if (endpoint === null) throw notFound('The webhook endpoint');
  const delivery = await deps.deliveries.find(input.orgId, endpoint.id, input.deliveryId, deps.attemptsListed);
  if (delivery === null) throw notFound('The delivery');
  if (delivery.createdAt.getTime() < Date.now() - deps.windowMs)
    throw conflict('Only deliveries of the last 14 days can be replayed.');
  if (endpoint.status !== 'active')
    throw conflict(
      `The endpoint is ${endpoint.status === 'auto_paused' ? 'auto-paused' : 'disabled'}; set active: true first.`,
    );
  await deps.deliveries.replay(input.orgId, delivery.id);
  await deps.commands.now({ id: delivery.id, endpointId: endpoint.id, orgId: input.orgId });
  const replayed = await deps.deliveries.find(input.orgId, endpoint.id, delivery.id, deps.attemptsListed);
  return toDeliveryView(replayed ?? delivery);
}
