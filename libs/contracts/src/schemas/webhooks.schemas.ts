import { Type, type Static } from '@sinclair/typebox';
import { NullableDate } from './accounts.schemas.ts';

/** Shapes shared by the webhook messages and the gateway's HTTP schemas. */
export const WEBHOOK_EVENT_TYPES = ['post.published', 'post.failed', 'post.queued', 'connection.revoked'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WebhookEventType = Type.Unsafe<WebhookEventType>({ type: 'string', enum: [...WEBHOOK_EVENT_TYPES] });

export const ENDPOINT_STATUSES = ['active', 'disabled', 'auto_paused'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];
export const PAYLOAD_FORMATS = ['envelope', 'legacy'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** An endpoint as API users see it (the signing secret only in the create and rotate replies). */
export const WebhookEndpointView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(WebhookEventType),
  active: Type.Boolean(),
  status: Type.Unsafe<EndpointStatus>({ type: 'string', enum: [...ENDPOINT_STATUSES] }),
  payload_format: Type.Unsafe<PayloadFormat>({ type: 'string', enum: [...PAYLOAD_FORMATS] }),
  created_at: Type.String({ format: 'date-time' }),
});
export type WebhookEndpointViewType = Static<typeof WebhookEndpointView>;

export const WebhookEndpointWithSecret = Type.Composite([
  WebhookEndpointView,
  Type.Object({ signing_secret: Type.String({ pattern: '^whsec_' }) }),
]);

export const WebhookAttemptView = Type.Object({
  id: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

export const WebhookDeliveryView = Type.Object({
  id: Type.String(),
  event_type: WebhookEventType,
  status: Type.Unsafe<(typeof WEBHOOK_DELIVERY_STATUSES)[number]>({
    type: 'string',
    enum: [...WEBHOOK_DELIVERY_STATUSES],
  }),
  /** The latest attempts (at most WEBHOOK_ATTEMPTS_LISTED), oldest first. */
  attempts: Type.Array(WebhookAttemptView),
  /** Earlier attempts not listed. */
  attempts_omitted: Type.Integer({ minimum: 0 }),
  next_attempt_at: NullableDate,
  created_at: Type.String({ format: 'date-time' }),
});
export type WebhookDeliveryViewType = Static<typeof WebhookDeliveryView>;

/** `status_code` is 0 when no HTTP response came back (refused, timed out, blocked); `error` says why. */
export const WebhookTestResultView = Type.Object({
  id: Type.String(),
  event_type: WebhookEventType,
  status_code: Type.Integer({ minimum: 0 }),
  attempts: Type.Integer({ minimum: 1 }),
  error: Type.Union([Type.String(), Type.Null()]),
});
