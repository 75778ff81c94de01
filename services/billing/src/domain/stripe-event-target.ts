import type Stripe from 'stripe';
import { idOf } from './stripe-client.ts';

/** The events that can change an organization's plan (docs/api-conventions.md, "Billing"). */
export const HANDLED_EVENTS = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.payment_failed',
]);

/**
 * Which subscription an event is about, and whose customer. The organization is never taken from the
 * event (client_reference_id, metadata): anyone able to open a Checkout or Payment Link of the same
 * Stripe account can put any organization there. It comes from the customer billing created for it.
 */
export interface EventTarget {
  subscriptionId: string;
  customerId: string;
  /** The subscription as the event carried it: used only when Stripe no longer has it. */
  snapshot: Stripe.Subscription | null;
}

/** Null for events that concern no subscription (other types, one-off checkouts): they are recorded and ignored. */
export function eventTarget(event: Stripe.Event): EventTarget | null {
  if (!HANDLED_EVENTS.has(event.type)) return null;
  const object = event.data.object as unknown as { object?: string };
  if (object.object === 'checkout.session') {
    const session = object as Stripe.Checkout.Session;
    const subscriptionId = idOf(session.subscription);
    const customerId = idOf(session.customer);
    if (session.mode !== 'subscription' || subscriptionId === null || customerId === null) return null;
    return { subscriptionId, customerId, snapshot: null };
  }
  if (object.object === 'subscription') {
    const subscription = object as Stripe.Subscription;
    const customerId = idOf(subscription.customer);
    if (customerId === null) return null;
    return { subscriptionId: subscription.id, customerId, snapshot: subscription };
  }
  if (object.object === 'invoice') {
    const invoice = object as Stripe.Invoice;
    const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
    const customerId = idOf(invoice.customer);
    if (subscriptionId === null || customerId === null) return null;
    return { subscriptionId, customerId, snapshot: null };
  }
  return null;
}
