import {
  type CheckoutSessionRecord,
  type CustomerRecord,
  type Json,
  type PortalSessionRecord,
  type PriceRecord,
  type SubscriptionRecord,
} from './stripe-objects.ts';

/** One attempt to deliver an event to the webhook endpoint. */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  /** The endpoint's HTTP status; null when no answer came (refused, timed out). */
  status: number | null;
  error: string | null;
}

export interface EventRecord {
  id: string;
  type: string;
  created: number;
  apiVersion: string | null;
  /** The object as it was when the event happened (events are snapshots, not live objects). */
  object: Json;
  previousAttributes: Json | null;
  request: { id: string | null; idempotency_key: string | null };
  deliveries: DeliveryAttempt[];
  delivered: boolean;
}

export function eventJson(event: EventRecord): Json {
  return {
    id: event.id,
    object: 'event',
    api_version: event.apiVersion,
    created: event.created,
    data: {
      object: event.object,
      ...(event.previousAttributes === null ? {} : { previous_attributes: event.previousAttributes }),
    },
    livemode: false,
    pending_webhooks: event.delivered ? 0 : 1,
    request: event.request,
    type: event.type,
  };
}

/** A POST's answer, kept under its Idempotency-Key so a retry gets the same answer (API reference, "Idempotent requests"). */
export interface IdempotentAnswer {
  fingerprint: string;
  status: number;
  body: unknown;
}

/**
 * Everything the sandbox's Stripe account holds, in memory, apart from the networks' state: resetting
 * the networks (`POST /__sandbox/reset`) leaves it alone, `POST /__sandbox/stripe/reset` clears it.
 * The prices come from configuration and survive a reset.
 */
export class StripeState {
  readonly customers = new Map<string, CustomerRecord>();
  readonly checkoutSessions = new Map<string, CheckoutSessionRecord>();
  readonly portalSessions = new Map<string, PortalSessionRecord>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly events: EventRecord[] = [];
  readonly idempotency = new Map<string, IdempotentAnswer>();
  /** The API version of the latest request (the SDK pins one): events are rendered in it, as for an account's endpoint. */
  apiVersion: string | null = null;

  constructor(readonly prices: ReadonlyMap<string, PriceRecord>) {}

  reset(): void {
    this.customers.clear();
    this.checkoutSessions.clear();
    this.portalSessions.clear();
    this.subscriptions.clear();
    this.events.length = 0;
    this.idempotency.clear();
    this.apiVersion = null;
  }
}
