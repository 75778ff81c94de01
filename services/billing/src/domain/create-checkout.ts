import { randomUUID } from 'node:crypto';
import { conflict } from '@svc/errors';
import type Stripe from 'stripe';
import type { CustomersRepository } from '../data/customers.repository.ts';
import type { OrgPlansRepository } from '../data/org-plans.repository.ts';
import { notConfigured, stripeUnavailable } from './errors.ts';
import { isPaying } from './plans.ts';

export interface CheckoutDeps {
  stripe: Stripe | null;
  priceId: string | undefined;
  successUrl: string;
  cancelUrl: string;
  customers: CustomersRepository;
  orgPlans: OrgPlansRepository;
}

/**
 * The organization's Stripe customer, created on first use. The creation's idempotency key is the
 * organization, so two first checkouts racing (or a retry after a lost answer) get one customer from
 * Stripe; the first id recorded here wins either way.
 */
export async function ensureCustomer(stripe: Stripe, customers: CustomersRepository, orgId: string): Promise<string> {
  const known = await customers.find(orgId);
  if (known !== null) return known;
  let created: Stripe.Customer;
  try {
    created = await stripe.customers.create(
      { metadata: { org_id: orgId }, description: `Organization ${orgId}` },
      { idempotencyKey: `customer-create:${orgId}` },
    );
  } catch (error) {
    throw stripeUnavailable('create the billing customer', error);
  }
  return customers.remember(orgId, created.id);
}

/**
 * A Stripe Checkout Session in subscription mode for the configured price. Each request has its own
 * idempotency key toward Stripe (organization + request id), so the SDK's retries never open two.
 */
export async function createCheckout(
  deps: CheckoutDeps,
  orgId: string,
  requestId: string | null,
): Promise<{ url: string }> {
  if (deps.stripe === null) throw notConfigured('STRIPE_SECRET_KEY', 'checkout');
  if (deps.priceId === undefined) throw notConfigured('STRIPE_PRICE_ID', 'checkout');
  const plan = await deps.orgPlans.find(orgId);
  if (plan !== null && plan.plan !== 'free' && isPaying(plan.status)) {
    throw conflict('The organization already has an active subscription; manage it through POST /v1/billing/portal.');
  }
  const customer = await ensureCustomer(deps.stripe, deps.customers, orgId);
  let session: Stripe.Checkout.Session;
  try {
    session = await deps.stripe.checkout.sessions.create(
      {
        mode: 'subscription',
        customer,
        line_items: [{ price: deps.priceId, quantity: 1 }],
        success_url: deps.successUrl,
        cancel_url: deps.cancelUrl,
        client_reference_id: orgId,
        metadata: { org_id: orgId },
        subscription_data: { metadata: { org_id: orgId } },
      },
      { idempotencyKey: `checkout:${orgId}:${requestId ?? randomUUID()}` },
    );
  } catch (error) {
    throw stripeUnavailable('create the checkout session', error);
  }
  if (session.url === null)
    throw stripeUnavailable('return a checkout address', new Error(`session ${session.id} has no url`));
  return { url: session.url };
}
