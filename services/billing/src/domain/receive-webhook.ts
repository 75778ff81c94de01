import type { Logger } from '@svc/logger';
import { validationError } from '@svc/errors';
import Stripe from 'stripe';
import type { CustomersRepository } from '../data/customers.repository.ts';
import type { StripeEventsRepository } from '../data/stripe-events.repository.ts';
import type { SubscriptionRecord } from '../data/subscriptions.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { notConfigured, stripeUnavailable } from './errors.ts';
import { recomputePlan, type RecomputeDeps } from './recompute-plan.ts';
import { eventTarget, type EventTarget } from './stripe-event-target.ts';
import { idOf } from './stripe-client.ts';

export interface WebhookDeps extends RecomputeDeps {
  db: PrismaClient;
  stripe: Stripe | null;
  webhookSecret: string | undefined;
  toleranceSeconds: number;
  /** Upper bound of one event's transaction, which includes reading the subscription from Stripe. */
  transactionTimeoutMs: number;
  customers: CustomersRepository;
  events: StripeEventsRepository;
  logger: Logger;
  /** Wakes the outbox relay after commit. */
  wake: () => void;
}

export interface WebhookInput {
  rawBody: Buffer;
  signature: string;
  requestId: string | null;
}

function verify(deps: WebhookDeps, input: WebhookInput): Stripe.Event {
  if (deps.webhookSecret === undefined) throw notConfigured('STRIPE_WEBHOOK_SECRET', 'the Stripe webhook');
  try {
    return Stripe.webhooks.constructEvent(input.rawBody, input.signature, deps.webhookSecret, deps.toleranceSeconds);
  } catch (error) {
    deps.logger.warn({ reason: (error as Error).message }, 'Stripe webhook refused: bad signature');
    throw validationError(
      'The Stripe-Signature header does not match the body, or is too old; the event was not applied.',
      [{ path: '/headers/stripe-signature', message: 'does not verify against the raw body with the endpoint secret' }],
    );
  }
}

function record(
  deps: WebhookDeps,
  subscription: Stripe.Subscription,
  orgId: string,
  customerId: string,
): SubscriptionRecord {
  const items = subscription.items.data;
  const periodEnds = items.map((item) => item.current_period_end).filter((end) => typeof end === 'number');
  return {
    id: subscription.id,
    orgId,
    stripeCustomerId: customerId,
    status: subscription.status,
    priceId: deps.plans.subscribedPrice(items.map((item) => item.price.id)),
    currentPeriodEnd: periodEnds.length === 0 ? null : new Date(Math.max(...periodEnds) * 1000),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    stripeCreatedAt: new Date(subscription.created * 1000),
  };
}

/**
 * The subscription as Stripe has it now. Events may arrive late, twice or out of order; whatever the
 * event says, the subscription's current state is what gets applied, so an old `updated` arriving
 * after `deleted` cannot resurrect a canceled plan. Only a subscription Stripe no longer knows falls
 * back to the event's own copy.
 */
async function currentSubscription(stripe: Stripe, target: EventTarget): Promise<Stripe.Subscription | null> {
  try {
    return await stripe.subscriptions.retrieve(target.subscriptionId);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError && error.statusCode === 404) return target.snapshot;
    throw stripeUnavailable('read the subscription', error);
  }
}

/**
 * Applies one Stripe webhook exactly once per event id: the event id, the subscription copy, the
 * organization's plan and its billing.plan_changed announcement commit in one transaction. Events of
 * one customer are applied one at a time (an advisory lock taken before Stripe is read), so the later
 * transaction always reads the later state.
 *
 * Only customers billing created (for an organization's checkout, `customers`) are applied: an event
 * of any other customer of the Stripe account is recorded, logged and answered 200, whatever
 * organization its metadata or client_reference_id names.
 */
export async function receiveWebhook(
  deps: WebhookDeps,
  input: WebhookInput,
): Promise<{ event_id: string; type: string; duplicate: boolean }> {
  const event = verify(deps, input);
  const reply = (duplicate: boolean) => ({ event_id: event.id, type: event.type, duplicate });
  if (await deps.events.seen(event.id)) return reply(true);
  const target = eventTarget(event);
  if (target !== null && deps.stripe === null) throw notConfigured('STRIPE_SECRET_KEY', 'applying subscription events');
  const fresh = await deps.db.$transaction(
    async (tx) => {
      if (target === null)
        return deps.events.record({ id: event.id, type: event.type, orgId: null, created: event.created }, tx);
      await deps.customers.lock(target.customerId, tx);
      const orgId = await deps.customers.orgOf(target.customerId, tx);
      if (!(await deps.events.record({ id: event.id, type: event.type, orgId, created: event.created }, tx)))
        return false;
      if (orgId === null) {
        deps.logger.warn(
          { event_id: event.id, type: event.type, customer: target.customerId },
          'Stripe event for a customer billing did not create; recorded, not applied',
        );
        return true;
      }
      const subscription = await currentSubscription(deps.stripe!, target);
      if (subscription === null) return true;
      const saved = record(deps, subscription, orgId, idOf(subscription.customer) ?? target.customerId);
      if (!deps.plans.isPaidPrice(saved.priceId)) {
        deps.logger.warn(
          { event_id: event.id, subscription: saved.id, price: saved.priceId, org_id: orgId },
          "subscription to a price that is not the paid plan's (STRIPE_PRICE_ID); it gives the free plan",
        );
      }
      await deps.subscriptions.save(saved, tx);
      await recomputePlan(tx, deps, orgId, input.requestId);
      return true;
    },
    { timeout: deps.transactionTimeoutMs, maxWait: deps.transactionTimeoutMs },
  );
  if (fresh) deps.wake();
  return reply(!fresh);
}
