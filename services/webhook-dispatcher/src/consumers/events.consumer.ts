import { eventSubscriptions, type Handlers } from '@svc/contracts';
import { handleEachItem } from '@svc/messaging';
import type { EventFanOut } from '../domain/fan-out-event.ts';

/** The customer-visible events, exactly the dispatcher's line in the subscription table. */
export const customerEvents = eventSubscriptions['webhook-dispatcher.work'];
export const EVENTS_QUEUE = 'webhook-dispatcher.work';

/** Fan-out is idempotent on (endpoint, event id): a redelivered event inserts and sends nothing. */
export function eventHandlers(fanOutEvents: EventFanOut): Handlers<typeof customerEvents> {
  const fanOut = async (envelope: Parameters<EventFanOut['handle']>[0]) => {
    await fanOutEvents.handle(envelope);
  };
  return {
    // Each carried event as if it had come alone, in the carrier's organization. The carrier is acked
    // once every one is fanned out; if one fails, it is retried whole once the others settled, and
    // finds theirs done (the fan-out is keyed by event id).
    'publisher.posts_queued.v1': (carrier) =>
      handleEachItem(carrier.payload.events, (event) => fanOutEvents.handle({ ...event, org_id: carrier.org_id })),
    'post.queued.v1': fanOut,
    'post.published.v1': fanOut,
    'post.failed.v1': fanOut,
    'connection.revoked.v1': fanOut,
  };
}
