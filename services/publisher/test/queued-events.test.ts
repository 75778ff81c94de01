import { randomUUID } from 'node:crypto';
import {
  createEnvelope,
  POSTS_QUEUED_MAX_BYTES,
  POSTS_QUEUED_MAX_EVENTS,
  postQueued,
  type Envelope,
  type PayloadOf,
  type postsQueued,
} from '@svc/contracts';
import { carryQueuedEvents, type QueuedEvent } from '../src/domain/queued-events.ts';

function queued(orgId: string, text = 'hello'): QueuedEvent {
  const id = randomUUID();
  return createEnvelope(
    postQueued,
    {
      id,
      job_id: id,
      status: 'queued',
      account_ids: ['acc_1'],
      platforms: ['x'],
      text,
      scheduled_at: null,
      error_message: null,
      results: [
        {
          account_id: 'acc_1',
          provider: 'x',
          status: 'pending',
          platform_post_id: null,
          platform_post_url: null,
          error_code: null,
          error_message: null,
        },
      ],
    },
    { orgId, requestId: `req_${id}` },
  );
}

const eventsOf = (carrier: Envelope) => (carrier.payload as PayloadOf<typeof postsQueued>).events;

describe('post.queued events carried together', () => {
  it('carries each organization its own events, in order, each exactly as made', () => {
    const a = [queued('org_a'), queued('org_a')];
    const b = [queued('org_b')];
    const carriers = carryQueuedEvents([a[0]!, b[0]!, a[1]!]);
    expect(carriers.map((carrier) => [carrier.type, carrier.org_id, carrier.request_id])).toEqual([
      ['publisher.posts_queued.v1', 'org_a', null],
      ['publisher.posts_queued.v1', 'org_b', null],
    ]);
    expect(carriers.map(eventsOf)).toEqual([a, b]);
    expect(new Set(carriers.map((carrier) => carrier.message_id)).size).toBe(2);
  });

  it('splits a carrier at its most events and at its most bytes', () => {
    const many = Array.from({ length: POSTS_QUEUED_MAX_EVENTS + 1 }, () => queued('org_many'));
    expect(carryQueuedEvents(many).map((carrier) => eventsOf(carrier).length)).toEqual([POSTS_QUEUED_MAX_EVENTS, 1]);

    // 5,000 characters of 4 bytes each (the longest text): 20 kB an event, so 1 MiB holds about 50.
    const long = Array.from({ length: 60 }, () => queued('org_long', '😀'.repeat(5_000)));
    const carriers = carryQueuedEvents(long);
    expect(carriers.length).toBe(2);
    expect(carriers.flatMap(eventsOf)).toEqual(long);
    for (const carrier of carriers)
      expect(Buffer.byteLength(JSON.stringify(eventsOf(carrier)))).toBeLessThanOrEqual(POSTS_QUEUED_MAX_BYTES);
  });

  it('carries nothing for no events, and refuses an event without an organization', () => {
    expect(carryQueuedEvents([])).toEqual([]);
    expect(() => carryQueuedEvents([{ ...queued('org_a'), org_id: null }])).toThrow(/no organization/);
  });
});
