import { randomUUID } from 'node:crypto';
import type { PayloadFormat, WebhookEventType } from '@svc/contracts';
import { notFound } from '@svc/errors';
import type { DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import type { DeliveryAttempts } from './attempt-delivery.ts';
import { deliveryBodies, sampleEvent } from './payloads.ts';

/**
 * `POST /v1/webhooks/{id}/test`: a sample of the endpoint's first subscribed event, signed and sent
 * now through the same guarded client, recorded as a delivery (listed and replayable like any other)
 * with one attempt and no retries. Paused endpoints can be tested too, to check a fix before resuming.
 */
export async function testEndpoint(
  deps: { endpoints: EndpointsRepository; deliveries: DeliveriesRepository; attempts: DeliveryAttempts },
  input: { orgId: string; endpointId: string },
) {
  const endpoint = await deps.endpoints.find(input.orgId, input.endpointId);
  if (endpoint === null) throw notFound('The webhook endpoint');
  const type = (endpoint.events[0] ?? 'post.published') as WebhookEventType;
  const eventId = randomUUID();
  const [body] = deliveryBodies(sampleEvent(type, new Date()), eventId, endpoint.payloadFormat as PayloadFormat);
  if (body === undefined) throw new Error('The sample event produced no body.');
  const id = randomUUID();
  await deps.deliveries.insertMany([{ id, orgId: input.orgId, endpointId: endpoint.id, eventKey: `test:${body.key}`, eventType: type, body: body.body(id), manual: true }]);
  const outcome = await deps.attempts.run(id, { evenIfPaused: true });
  if (outcome === undefined) throw new Error('The test delivery could not be claimed.');
  return { id, event_type: type, status_code: outcome.result.statusCode ?? 0, attempts: 1, error: outcome.result.error };
}
