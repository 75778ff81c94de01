import { randomUUID } from 'node:crypto';
import { conflict } from '@svc/errors';
import type Stripe from 'stripe';
import type { CustomersRepository } from '../data/customers.repository.ts';
import { notConfigured, stripeUnavailable } from './errors.ts';

/** A customer-portal session where the organization manages its subscription, invoices and card. */
export async function createPortal(
  deps: { stripe: Stripe | null; returnUrl: string; customers: CustomersRepository },
  orgId: string,
  requestId: string | null,
): Promise<{ url: string }> {
  if (deps.stripe === null) throw notConfigured('STRIPE_SECRET_KEY', 'the billing portal');
  const customer = await deps.customers.find(orgId);
  if (customer === null)
    throw conflict('The organization has no billing account yet; subscribe first through POST /v1/billing/checkout.');
  try {
    const session = await deps.stripe.billingPortal.sessions.create(
      { customer, return_url: deps.returnUrl },
      { idempotencyKey: `portal:${orgId}:${requestId ?? randomUUID()}` },
    );
    return { url: session.url };
  } catch (error) {
    throw stripeUnavailable('open the billing portal', error);
  }
}
