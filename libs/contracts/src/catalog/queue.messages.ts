import { Type, type Static } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';

// An organization's posting queue (weekly times in one zone), owned by the publisher, which also
// owns the slots posts take from it (`publisher.job_create.v1` with `queue`).

/** Most weekly times one queue holds. */
export const QUEUE_MAX_SLOTS = 100;
/** How many free times `publisher.queue_get.v1` lists. */
export const QUEUE_NEXT_SLOTS = 10;

export const QueueSlot = Type.Object({
  day: Type.String({ minLength: 1, maxLength: 16 }),
  time: Type.String({ minLength: 1, maxLength: 16 }),
});

export const QueueView = Type.Object({
  timezone: Type.String(),
  slots: Type.Array(QueueSlot),
  /** The next free times (ISO 8601, UTC): no post of the organization is queued at them yet. */
  next_slots: Type.Array(Type.String({ format: 'date-time' })),
  updated_at: Type.String({ format: 'date-time' }),
});
export type QueueViewType = Static<typeof QueueView>;

/** Replaces the organization's queue; 400 naming each bad zone, day, time or duplicate. */
export const publisherQueueSet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.queue_set.v1',
  service: 'publisher',
  payload: Type.Object({
    timezone: Type.String({ minLength: 1, maxLength: 64 }),
    slots: Type.Array(QueueSlot, { maxItems: QUEUE_MAX_SLOTS }),
  }),
  reply: QueueView,
});

/** The organization's queue with its next free times; 404 when none was set. */
export const publisherQueueGet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.queue_get.v1',
  service: 'publisher',
  payload: Type.Object({}),
  reply: QueueView,
});
