import { Type } from '@sinclair/typebox';
import { CursorPage, CursorQuery, HttpUrl, Id, NullableTimestamp, StringEnum, Timestamp } from './common.schemas.ts';

export const EVENT_TYPES = ['post.published', 'post.failed', 'post.queued', 'connection.revoked'] as const;
const EventType = StringEnum(EVENT_TYPES);
const Events = Type.Array(EventType, {
  minItems: 1,
  uniqueItems: true,
  description: 'At least one of the four event types.',
});
const PayloadFormat = StringEnum(['envelope', 'legacy'] as const, {
  description: '`envelope` (Shape A, default) or `legacy` (Shape B with `Svc-Signature`).',
});

export const WebhookEndpoint = Type.Object({
  id: Id,
  url: Type.String({ format: 'uri' }),
  events: Type.Array(EventType),
  active: Type.Boolean({ description: 'True while deliveries are sent (status `active`).' }),
  status: StringEnum(['active', 'disabled', 'auto_paused'] as const, {
    description:
      '`disabled` after `active: false`; `auto_paused` after failing with no success for 5 days, or at once on 410 Gone.',
  }),
  payload_format: PayloadFormat,
  created_at: Timestamp,
});
export const WebhookCreated = Type.Composite([
  WebhookEndpoint,
  Type.Object({
    signing_secret: Type.String({ pattern: '^whsec_', description: 'Shown once. The HMAC key is this whole string.' }),
  }),
]);
export const WebhookCreateBody = Type.Object(
  { url: HttpUrl, events: Events, payload_format: Type.Optional(PayloadFormat) },
  { additionalProperties: false },
);
export const WebhookUpdateBody = Type.Object(
  {
    url: Type.Optional(HttpUrl),
    events: Type.Optional(Events),
    active: Type.Optional(
      Type.Boolean({
        description: '`true` resumes a paused or disabled endpoint and clears its failure streak; `false` disables it.',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const WebhookIdParams = Type.Object({ webhook_id: Id });
export const DeliveryIdParams = Type.Object({ webhook_id: Id, delivery_id: Id });
export const WebhookTestResult = Type.Object({
  id: Id,
  event_type: EventType,
  status_code: Type.Integer({ minimum: 0, description: "The receiver's HTTP status; 0 when no response came back." }),
  attempts: Type.Integer({ minimum: 1 }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why no response came back (timeout, refused, an address not allowed or not resolved: one sentence for both).',
  }),
});

const DeliveryAttempt = Type.Object({
  id: Id,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first bytes of the response body.' }),
  created_at: Timestamp,
});
export const WebhookDelivery = Type.Object({
  id: Id,
  event_type: EventType,
  status: StringEnum(['pending', 'succeeded', 'failed'] as const),
  attempts: Type.Array(DeliveryAttempt, { description: 'The latest attempts (at most 20), oldest first.' }),
  attempts_omitted: Type.Integer({
    minimum: 0,
    description: 'Earlier attempts not listed (0 when `attempts` has them all).',
  }),
  next_attempt_at: NullableTimestamp,
  created_at: Timestamp,
});
export const DeliveryListQuery = Type.Object({ ...CursorQuery }, { additionalProperties: false });
const DeliveryPage = CursorPage(WebhookDelivery);
export const DeliveryList = Type.Object({
  ...DeliveryPage.properties,
  total: Type.Integer({ minimum: 0, description: 'Deliveries kept for the endpoint (30 days), counted up to 10,000.' }),
  total_exact: Type.Boolean({
    description: 'False when the endpoint has more than 10,000 deliveries and `total` says 10,000.',
  }),
});
