import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import {
  PAYLOAD_FORMATS,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
  WebhookEventType,
  WebhookTestResultView,
} from '../schemas/webhooks.schemas.ts';

// Gateway -> webhook-dispatcher. Every request is scoped by the envelope's org_id; ids of another
// organization answer not_found. Signing secrets travel only in RPC replies (transient), never in events.

const Events = Type.Array(WebhookEventType, { minItems: 1, uniqueItems: true });
const EndpointRef = Type.Object({ webhook_id: Type.String({ minLength: 1 }) });

export const webhooksList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.list.v1',
  service: 'webhook-dispatcher',
  payload: Type.Object({}),
  reply: Type.Object({ items: Type.Array(WebhookEndpointView) }),
});

export const webhooksCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.create.v1',
  service: 'webhook-dispatcher',
  payload: Type.Object({
    url: Type.String({ minLength: 1 }),
    events: Events,
    payload_format: Type.Optional(
      Type.Unsafe<(typeof PAYLOAD_FORMATS)[number]>({ type: 'string', enum: [...PAYLOAD_FORMATS] }),
    ),
  }),
  reply: WebhookEndpointWithSecret,
});

export const webhooksUpdate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.update.v1',
  service: 'webhook-dispatcher',
  payload: Type.Object({
    webhook_id: Type.String({ minLength: 1 }),
    url: Type.Optional(Type.String({ minLength: 1 })),
    events: Type.Optional(Events),
    active: Type.Optional(Type.Boolean()),
  }),
  reply: WebhookEndpointView,
});

export const webhooksDelete = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.delete.v1',
  service: 'webhook-dispatcher',
  payload: EndpointRef,
  reply: Type.Object({}),
});

/**
 * Sends a sample event now and waits for the receiver (up to the test timeout, 5 s). Served on the
 * dispatcher's `tests` lane (its own queue and prefetch), so tests waiting on receivers never delay
 * the other webhook calls.
 */
export const webhooksTest = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.test.v1',
  service: 'webhook-dispatcher.tests',
  payload: EndpointRef,
  reply: WebhookTestResultView,
});

export const webhooksRotateSecret = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.rotate_secret.v1',
  service: 'webhook-dispatcher',
  payload: EndpointRef,
  reply: WebhookEndpointWithSecret,
});

export const webhooksDeliveriesList = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.deliveries_list.v1',
  service: 'webhook-dispatcher',
  payload: Type.Object({
    webhook_id: Type.String({ minLength: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
    cursor: Type.Optional(Type.String()),
  }),
  reply: Type.Object({
    items: Type.Array(WebhookDeliveryView),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    /** Counted up to a bound (`total_exact` false past it). */
    total: Type.Integer({ minimum: 0 }),
    total_exact: Type.Boolean(),
  }),
});

export const webhooksDeliveryReplay = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'webhooks.delivery_replay.v1',
  service: 'webhook-dispatcher',
  payload: Type.Object({ webhook_id: Type.String({ minLength: 1 }), delivery_id: Type.String({ minLength: 1 }) }),
  reply: WebhookDeliveryView,
});

/**
 * One attempt of one delivery, due at `due_at`. Travels through the broker's delay tiers; the
 * dispatcher re-delays the remainder when a tier brought it back early. The delivery row is the
 * source of truth: a command for a delivery that is not due (or no longer pending) is dropped.
 */
export const webhooksDeliveryAttempt = defineMessage({
  kind: 'command',
  type: 'webhooks.delivery_attempt.v1',
  payload: Type.Object({
    delivery_id: Type.String(),
    endpoint_id: Type.String(),
    due_at: Type.String({ format: 'date-time' }),
  }),
  description: 'Deliver (or retry) one webhook delivery when due.',
  retry: { maxRetries: 5 },
});
