import { Type } from '@sinclair/typebox';
import { CursorPage, CursorQuery, HttpUrl, Id, NullableTimestamp, StringEnum, Timestamp } from './common.schemas.ts';

export const EVENT_TYPES = ['post.published', 'post.failed', 'post.queued', 'connection.revoked'] as const;
const EventType = StringEnum(EVENT_TYPES);
const Events = Type.Array(EventType, { minItems: 1, uniqueItems: true });

export const WebhookEndpoint = Type.Object({
  id: Id,
  url: Type.String({ format: 'uri' }),
  events: Type.Array(EventType),
  active: Type.Boolean(),
  status: StringEnum(['active', 'disabled', 'auto_paused'] as const),
  payload_format: StringEnum(['envelope', 'legacy'] as const),
  created_at: Timestamp,
});
export const WebhookCreated = Type.Composite([WebhookEndpoint, Type.Object({ signing_secret: Type.String({ pattern: '^whsec_' }) })]);
export const WebhookCreateBody = Type.Object(
  { url: HttpUrl, events: Events, payload_format: Type.Optional(StringEnum(['envelope', 'legacy'] as const)) },
  { additionalProperties: false },
);
export const WebhookUpdateBody = Type.Object(
  { url: Type.Optional(HttpUrl), events: Type.Optional(Events), active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
);
export const WebhookIdParams = Type.Object({ webhook_id: Id });
export const DeliveryIdParams = Type.Object({ webhook_id: Id, delivery_id: Id });
export const WebhookTestResult = Type.Object({ id: Id, event_type: Type.String(), status_code: Type.Integer(), attempts: Type.Integer() });

const DeliveryAttempt = Type.Object({
  id: Id,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});
export const WebhookDelivery = Type.Object({
  id: Id,
  event_type: Type.String(),
  status: StringEnum(['pending', 'succeeded', 'failed'] as const),
  attempts: Type.Array(DeliveryAttempt),
  next_attempt_at: NullableTimestamp,
  created_at: Timestamp,
});
export const DeliveryListQuery = Type.Object({ ...CursorQuery }, { additionalProperties: false });
export const DeliveryList = CursorPage(WebhookDelivery);
