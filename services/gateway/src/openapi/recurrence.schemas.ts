import { Type } from '@sinclair/typebox';
import { RECURRENCE_MAX_COUNT, RECURRENCE_NEXT_TIMES } from '@svc/contracts';
import { StringEnum, Timestamp } from './common.schemas.ts';
import { defineOperation } from './operation.ts';

const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const RuleFields = {
  freq: StringEnum(['weekly'] as const, { description: 'How the rule repeats; `weekly` is the only one.' }),
  days: Type.Array(StringEnum(WEEKDAYS), {
    minItems: 1,
    maxItems: 7,
    description: 'Days of the week, in the rule’s time zone, on which the post goes out.',
  }),
  time: Type.String({
    pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    description:
      'Wall-clock time `HH:MM` (24 h) in the rule’s time zone (daylight saving as in docs/api-recurring.md).',
  }),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'IANA time zone name, e.g. `Europe/Berlin`; an unknown zone is a 400 `timezone_invalid`.',
  }),
  until: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'No occurrence after this instant; must lie in the future (400 `until_not_future`). Not with `count`.',
    }),
  ),
  count: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: RECURRENCE_MAX_COUNT,
      description: `How many occurrences in all, the first included (1..${RECURRENCE_MAX_COUNT}). Not with \`until\` (400 \`until_with_count\`).`,
    }),
  ),
};

/** `recurrence` on `POST /v1/posts` and `POST /v1/publish`. */
export const RecurrenceField = Type.Object(RuleFields, {
  additionalProperties: false,
  description:
    'Repeat the post weekly: the answer is the first occurrence (a scheduled post with `recurrence_id`); the next ones are created ahead as scheduled posts of their own. Not with `scheduled_at` (400 `recurrence_with_scheduled_at`) or `queue` (400 `recurrence_with_queue`). See docs/api-recurring.md.',
});

const Recurrence = Type.Object({
  id: Type.String(),
  rule: Type.Object(RuleFields),
  status: StringEnum(['active', 'cancelled', 'finished'] as const, {
    description: '`finished` once `until` or `count` leaves no time to come.',
  }),
  occurrences_created: Type.Integer({ minimum: 0, description: 'Occurrences created so far (posts in the history).' }),
  next_occurrences: Type.Array(Timestamp, {
    maxItems: RECURRENCE_NEXT_TIMES,
    description: `The next ${RECURRENCE_NEXT_TIMES} times at most (UTC, ascending): occurrences still scheduled, then those not created yet. Empty once cancelled or finished.`,
  }),
  created_at: Timestamp,
  cancelled_at: Type.Union([Timestamp, Type.Null()]),
});

const RecurrenceIdParams = Type.Object({ recurrence_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const recurrenceOperations = {
  getRecurrence: defineOperation({
    operationId: 'getRecurrence',
    method: 'get',
    path: '/v1/recurrences/{recurrence_id}',
    summary: 'A recurring post’s rule and its next occurrence times.',
    tag: 'Recurring posts',
    auth: 'api_key_or_jwt',
    params: RecurrenceIdParams,
    responses: { 200: Recurrence },
    errors: [404],
  }),
  deleteRecurrence: defineOperation({
    operationId: 'deleteRecurrence',
    method: 'delete',
    path: '/v1/recurrences/{recurrence_id}',
    summary:
      'Stop a recurring post: no occurrence is created any more and those still scheduled are canceled; posts already queued or published stay.',
    tag: 'Recurring posts',
    auth: 'api_key_or_jwt',
    params: RecurrenceIdParams,
    responses: { 204: null },
    errors: [404],
  }),
};
