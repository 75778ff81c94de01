import {
  createEnvelope,
  POSTS_QUEUED_MAX_BYTES,
  POSTS_QUEUED_MAX_EVENTS,
  postsQueued,
  type Envelope,
  type PayloadOf,
  type postQueued,
} from '@svc/contracts';

export type QueuedEvent = Envelope<PayloadOf<typeof postQueued>>;
type QueuedEventOfOrg = QueuedEvent & { org_id: string };

/**
 * The post.queued events of jobs queued by one statement, carried together: one
 * `publisher.posts_queued.v1` per organization, the events in the order given, a carrier split
 * where it would pass POSTS_QUEUED_MAX_EVENTS or POSTS_QUEUED_MAX_BYTES. Each event keeps its own
 * envelope (id, time, request id), so what a webhook receiver gets does not change; what changes is
 * one outbox row, one confirmed publish and one broker message for the lot instead of one per job
 * (docs/performance.md, "post.queued together").
 */
export function carryQueuedEvents(events: readonly QueuedEvent[]): Envelope[] {
  const byOrg = new Map<string, QueuedEventOfOrg[]>();
  for (const event of events) {
    if (event.org_id === null) throw new Error(`post.queued ${event.message_id} has no organization`);
    const ofOrg = byOrg.get(event.org_id);
    if (ofOrg === undefined) byOrg.set(event.org_id, [event as QueuedEventOfOrg]);
    else ofOrg.push(event as QueuedEventOfOrg);
  }
  const carriers: Envelope[] = [];
  for (const [orgId, ofOrg] of byOrg) {
    let carried: QueuedEventOfOrg[] = [];
    let bytes = 0;
    for (const event of ofOrg) {
      const size = Buffer.byteLength(JSON.stringify(event));
      if (carried.length === POSTS_QUEUED_MAX_EVENTS || (carried.length > 0 && bytes + size > POSTS_QUEUED_MAX_BYTES)) {
        carriers.push(carrier(orgId, carried));
        carried = [];
        bytes = 0;
      }
      carried.push(event);
      bytes += size;
    }
    if (carried.length > 0) carriers.push(carrier(orgId, carried));
  }
  return carriers;
}

/** Validated here: an envelope's `type` is any string to the compiler, and must be post.queued.v1. */
function carrier(orgId: string, events: QueuedEventOfOrg[]): Envelope {
  return createEnvelope(
    postsQueued,
    { events: events as PayloadOf<typeof postsQueued>['events'] },
    { orgId, requestId: null },
  );
}
