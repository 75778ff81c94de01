import { randomUUID } from 'node:crypto';
import type { Envelope, PayloadFormat } from '@svc/contracts';
import type { DeliveriesRepository, NewDelivery } from '../data/deliveries.repository.ts';
import type { EndpointsRepository } from '../data/endpoints.repository.ts';
import type { AttemptCommands } from './attempt-commands.ts';
import { customerEvent, deliveryBodies, type PostEvent, type RevokedEvent } from './payloads.ts';

export interface FanOutDeps {
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  commands: AttemptCommands;
}

/**
 * One customer-visible event to every active endpoint of its organization subscribed to it. The
 * deliveries are keyed by (endpoint, event message id [, account]), so a redelivered or duplicated
 * event inserts nothing and sends nothing twice. Commands go out after the insert committed; one
 * lost in a crash is re-sent by the sweeper.
 */
export async function fanOutEvent(deps: FanOutDeps, envelope: Envelope<PostEvent | RevokedEvent>): Promise<number> {
  if (envelope.org_id === null) return 0;
  const orgId = envelope.org_id;
  const event = customerEvent(envelope);
  const subscribers = await deps.endpoints.subscribers(orgId, event.type);
  if (subscribers.length === 0) return 0;
  const rows: NewDelivery[] = subscribers.flatMap((endpoint) =>
    deliveryBodies(event, envelope.message_id, endpoint.payload_format as PayloadFormat).map((body) => {
      const id = randomUUID();
      return { id, orgId, endpointId: endpoint.id, eventKey: body.key, eventType: event.type, body: body.body(id), manual: false };
    }),
  );
  const inserted = await deps.deliveries.insertMany(rows);
  await Promise.all(inserted.map((row) => deps.commands.now({ id: row.id, endpointId: row.endpoint_id, orgId })));
  return inserted.length;
}
