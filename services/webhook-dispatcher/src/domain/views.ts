import type {
  EndpointStatus,
  PayloadFormat,
  WebhookDeliveryViewType,
  WebhookEndpointViewType,
  WebhookEventType,
} from '@svc/contracts';
import type { DeliveryWithAttempts } from '../data/deliveries.repository.ts';
import type { EndpointRow } from '../data/endpoints.repository.ts';

export function toEndpointView(row: EndpointRow): WebhookEndpointViewType {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    active: row.status === 'active',
    status: row.status as EndpointStatus,
    payload_format: row.payloadFormat as PayloadFormat,
    created_at: row.createdAt.toISOString(),
  };
}

export function toDeliveryView(row: DeliveryWithAttempts): WebhookDeliveryViewType {
  return {
    id: row.id,
    event_type: row.eventType as WebhookEventType,
    status: row.status as WebhookDeliveryViewType['status'],
    attempts: row.attempts.map((attempt) => ({
      id: attempt.id,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      response_excerpt: attempt.responseExcerpt,
      created_at: attempt.createdAt.toISOString(),
    })),
    attempts_omitted: Math.max(0, row.attemptCount - row.attempts.length),
    next_attempt_at: row.status === 'pending' && row.nextAttemptAt !== null ? row.nextAttemptAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
  };
}
