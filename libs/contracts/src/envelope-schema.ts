import { Type } from '@sinclair/typebox';

/**
 * Extra fields are tolerated so the envelope can grow one without older consumers parking every message.
 * `message_id` is not forced to be a UUID: publishers may reuse an outbox row id.
 */
export const EnvelopeSchema = Type.Object({
  message_id: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.String({ minLength: 1, maxLength: 200 }),
  occurred_at: Type.String({ format: 'date-time' }),
  request_id: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  org_id: Type.Union([Type.String({ maxLength: 200 }), Type.Null()]),
  payload: Type.Unknown(),
});
