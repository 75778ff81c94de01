import { Type, type Static } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';

// Recurring posts, owned by the publisher: the rule given as `recurrence` on create, and each
// occurrence an ordinary scheduled job carrying `recurrence_id`.

/** Most occurrences one recurrence may ask for with `count` (ten years of one weekly time). */
export const RECURRENCE_MAX_COUNT = 520;
/** How many coming times `publisher.recurrence_get.v1` lists. */
export const RECURRENCE_NEXT_TIMES = 10;

/** `{freq: "weekly", days, time, timezone, until? | count?}`; days, time and zone are checked by the calendar rules. */
export const RecurrenceRule = Type.Object(
  {
    freq: Type.Literal('weekly'),
    days: Type.Array(Type.String({ minLength: 1, maxLength: 16 }), { minItems: 1, maxItems: 7 }),
    time: Type.String({ minLength: 1, maxLength: 16 }),
    timezone: Type.String({ minLength: 1, maxLength: 64 }),
    until: Type.Optional(Type.String({ format: 'date-time' })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: RECURRENCE_MAX_COUNT })),
  },
  { additionalProperties: false },
);
export type RecurrenceRuleType = Static<typeof RecurrenceRule>;

export const RecurrenceView = Type.Object({
  id: Type.String(),
  rule: RecurrenceRule,
  status: Type.Union([Type.Literal('active'), Type.Literal('cancelled'), Type.Literal('finished')]),
  occurrences_created: Type.Integer(),
  /** The coming times not created yet or still scheduled (ISO 8601, UTC, ascending, at most 10); empty once it ended. */
  next_occurrences: Type.Array(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  cancelled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type RecurrenceViewType = Static<typeof RecurrenceView>;

/** The organization's recurrence with its next times; 404 for an unknown id or another organization's. */
export const publisherRecurrenceGet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.recurrence_get.v1',
  service: 'publisher',
  payload: Type.Object({ recurrence_id: Type.String({ minLength: 1, maxLength: 64 }) }),
  reply: RecurrenceView,
});

/** Stops the recurrence and cancels its occurrences still scheduled; 404 as for get. */
export const publisherRecurrenceCancel = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.recurrence_cancel.v1',
  service: 'publisher',
  payload: Type.Object({ recurrence_id: Type.String({ minLength: 1, maxLength: 64 }) }),
  reply: RecurrenceView,
});
