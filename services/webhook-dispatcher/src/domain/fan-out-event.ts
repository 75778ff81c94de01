import { randomUUID } from 'node:crypto';
import type { Envelope, PayloadFormat } from '@svc/contracts';
import type { ClaimedDelivery, DeliveriesRepository, NewDelivery } from '../data/deliveries.repository.ts';
import type { EndpointsRepository, Subscriber } from '../data/endpoints.repository.ts';
import type { AttemptCommands } from './attempt-commands.ts';
import type { DeliveryAttempts } from './attempt-delivery.ts';
import type { EndpointGate, Release } from './endpoint-gate.ts';
import { customerEvent, deliveryBodies, type PostEvent, type RevokedEvent } from './payloads.ts';

export interface FanOutDeps {
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  commands: AttemptCommands;
  attempts: DeliveryAttempts;
  gate: EndpointGate;
}

interface Planned {
  row: NewDelivery;
  endpoint: Subscriber;
  /** A slot (now or soon) in the endpoint's lane: the first attempt runs here. */
  slot: Promise<Release> | undefined;
}

/**
 * One customer-visible event to every active endpoint of its organization subscribed to it. The
 * deliveries are keyed by (endpoint, event message id [, account]), so a redelivered or duplicated
 * event inserts and sends nothing twice.
 *
 * First attempts run right here when the endpoint's lane admits them (a free slot, or a place among
 * its few waiters): the row is inserted already claimed (leased), so no command hop, claim or second
 * read is needed (bench/webhooks.bench.ts). When the lane is full (a slow endpoint), the delivery
 * goes through the deliveries queue like a retry, so a slow endpoint holds at most twice its lane of
 * this consumer. The event is acked once these attempts are recorded; if the process dies first, the
 * leased rows are re-sent by the sweeper.
 */
export async function fanOutEvent(deps: FanOutDeps, envelope: Envelope<PostEvent | RevokedEvent>): Promise<number> {
  if (envelope.org_id === null) return 0;
  const orgId = envelope.org_id;
  const event = customerEvent(envelope);
  const subscribers = await deps.endpoints.subscribers(orgId, event.type);
  if (subscribers.length === 0) return 0;
  const planned: Planned[] = subscribers.flatMap((endpoint) =>
    deliveryBodies(event, envelope.message_id, endpoint.payload_format as PayloadFormat).map((body) => {
      const id = randomUUID();
      const slot = deps.gate.enter(endpoint.id);
      const row: NewDelivery = { id, orgId, endpointId: endpoint.id, eventKey: body.key, eventType: event.type, body: body.body(id), manual: false };
      if (slot !== undefined) row.leaseMs = deps.attempts.leaseMs();
      return { row, endpoint, slot };
    }),
  );
  let inserted: Set<string>;
  try {
    inserted = new Set((await deps.deliveries.insertMany(planned.map((entry) => entry.row))).map((row) => row.id));
  } catch (error) {
    for (const entry of planned) void entry.slot?.then((release) => release());
    throw error;
  }
  await Promise.all(
    planned.map(async ({ row, endpoint, slot }) => {
      if (slot === undefined) {
        if (inserted.has(row.id)) await deps.commands.now({ id: row.id, endpointId: row.endpointId, orgId });
        return;
      }
      const release = await slot;
      try {
        if (inserted.has(row.id)) await deps.attempts.attempt(asClaimed(row, endpoint));
      } finally {
        release();
      }
    }),
  );
  return inserted.size;
}

function asClaimed(row: NewDelivery, endpoint: Subscriber): ClaimedDelivery {
  return {
    id: row.id,
    org_id: row.orgId,
    event_type: row.eventType,
    body: row.body,
    attempt_count: 0,
    manual: false,
    endpoint_id: endpoint.id,
    url: endpoint.url,
    endpoint_status: endpoint.status,
    payload_format: endpoint.payload_format,
    secret_cipher: endpoint.secret_cipher,
    previous_secret_cipher: endpoint.previous_secret_cipher,
    previous_valid: endpoint.previous_valid,
  };
}
