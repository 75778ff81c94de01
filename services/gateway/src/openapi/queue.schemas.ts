import { Type } from '@sinclair/typebox';
import { QUEUE_MAX_SLOTS, QUEUE_NEXT_SLOTS } from '@svc/contracts';
import { StringEnum, Timestamp } from './common.schemas.ts';
import { defineOperation } from './operation.ts';

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const QueueSlot = Type.Object(
  {
    day: StringEnum(WEEKDAYS, { description: 'Day of the week in the queue’s time zone.' }),
    time: Type.String({
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
      description: 'Wall-clock time `HH:MM` (24 h) in the queue’s time zone.',
    }),
  },
  { additionalProperties: false },
);

const QueueFields = {
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'IANA time zone name, e.g. `Europe/Berlin` (any case; answered as the zone database spells it). An unknown zone is a 400 with the rule `timezone_invalid`.',
  }),
  slots: Type.Array(QueueSlot, {
    maxItems: QUEUE_MAX_SLOTS,
    description: `Up to ${QUEUE_MAX_SLOTS} weekly times, each day and time at most once (a repeat is a 400 \`slot_duplicate\`).`,
  }),
};

export const QueueBody = Type.Object(QueueFields, { additionalProperties: false });

export const Queue = Type.Object({
  ...QueueFields,
  next_slots: Type.Array(Timestamp, {
    description: `The next ${QUEUE_NEXT_SLOTS} queue times (UTC) at least the scheduling lead ahead at which no post of the organization is queued yet, within two years.`,
  }),
  updated_at: Timestamp,
});

/** The posting queue's endpoints, spread into the operations table. */
export const queueOperations = {
  setQueue: defineOperation({
    operationId: 'setQueue',
    method: 'put',
    path: '/v1/queue',
    summary:
      "Set the organization's posting queue: weekly times in one time zone. `POST /v1/posts` with `queue: true` takes the next time free for every target account. Replaces the previous queue; posts already queued keep their times.",
    tag: 'Queue',
    auth: 'api_key_or_jwt',
    body: QueueBody,
    responses: { 200: Queue },
    errors: [400],
  }),
  getQueue: defineOperation({
    operationId: 'getQueue',
    method: 'get',
    path: '/v1/queue',
    summary: "The organization's posting queue with its next free times; 404 when none is set.",
    tag: 'Queue',
    auth: 'api_key_or_jwt',
    responses: { 200: Queue },
    errors: [404],
  }),
};
