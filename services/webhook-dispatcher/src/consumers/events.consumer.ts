import { eventSubscriptions, type Handlers } from '@svc/contracts';
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
    'post.queued.v1': fanOut,
    'post.published.v1': fanOut,
    'post.failed.v1': fanOut,
    'connection.revoked.v1': fanOut,
  };
}
