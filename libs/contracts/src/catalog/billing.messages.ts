import { Type } from '@sinclair/typebox';
import { defineMessage } from '../message-definition.ts';
import { NullableDate } from '../schemas/accounts.schemas.ts';
import { PlanLimits, PlanName, SubscriptionStatus } from '../schemas/billing.schemas.ts';

// Billing owns Stripe customers and subscriptions and decides each organization's plan. The limits
// are enforced by the services where the action happens (publisher: posts; accounts: connected
// accounts), each against a local replica of the organization's limits fed by billing.plan_changed.

const Url = Type.Object({ url: Type.String() });

/** Creates (or reuses) the organization's Stripe customer and a Checkout Session for the paid plan. */
export const billingCheckoutCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'billing.checkout_create.v1',
  service: 'billing',
  payload: Type.Object({}),
  reply: Url,
});

/** A Stripe customer-portal session for the organization's customer (404 before any checkout). */
export const billingPortalCreate = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'billing.portal_create.v1',
  service: 'billing',
  payload: Type.Object({}),
  reply: Url,
});

/** The organization's plan as billing knows it (usage is asked of the enforcing services). */
export const billingSubscriptionGet = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'billing.subscription_get.v1',
  service: 'billing',
  payload: Type.Object({}),
  reply: Type.Object({
    plan: PlanName,
    status: SubscriptionStatus,
    /** The plan the subscription is for, even when its status makes the free limits apply. */
    subscribed_plan: Type.Union([PlanName, Type.Null()]),
    current_period_end: NullableDate,
    cancel_at_period_end: Type.Boolean(),
    limits: PlanLimits,
  }),
});

/**
 * A Stripe webhook as received: the exact raw body (base64, so not one byte changes before the
 * signature check) and the `Stripe-Signature` header. Billing verifies, then applies it once.
 */
export const billingWebhookReceive = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'billing.webhook_receive.v1',
  service: 'billing',
  payload: Type.Object({ raw_body_base64: Type.String(), signature: Type.String() }),
  reply: Type.Object({ event_id: Type.String(), type: Type.String(), duplicate: Type.Boolean() }),
});

/**
 * The organization's effective plan changed (checkout, upgrade, cancellation, failed payment...).
 * `revision` grows by one per change of an organization: replicas keep the highest they saw, so a
 * late or redelivered event never rolls a newer plan back.
 */
export const billingPlanChanged = defineMessage({
  kind: 'event',
  type: 'billing.plan_changed.v1',
  payload: Type.Object({
    plan: PlanName,
    status: SubscriptionStatus,
    limits: PlanLimits,
    revision: Type.Integer({ minimum: 1 }),
  }),
  description: "An organization's effective plan and limits changed.",
});

/** Posts counted against the monthly limit (one per accepted job, canceled ones given back). */
export const publisherUsage = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'publisher.usage.v1',
  service: 'publisher',
  payload: Type.Object({}),
  reply: Type.Object({
    used: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 0 }),
    period_start: Type.String({ format: 'date-time' }),
  }),
});

/** Connected accounts counted against the plan (every stored account, whatever its health). */
export const accountsUsage = defineMessage({
  kind: 'rpc',
  callers: ['gateway'],
  type: 'accounts.usage.v1',
  service: 'accounts',
  payload: Type.Object({}),
  reply: Type.Object({ used: Type.Integer({ minimum: 0 }), limit: Type.Integer({ minimum: 0 }) }),
});
