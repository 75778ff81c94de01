// Helpers shared by the billing system tests: a system whose billing talks to the Stripe stand-in,
// webhooks delivered as Stripe delivers them, and subscriptions taken through checkout.
import request from 'supertest';
import { startSystem, type ServiceName, type SystemHarness } from '../support/system-harness.ts';
import { startStripeStandIn, type StripeStandIn } from '../support/stripe-server.ts';

export interface BillingSystem {
  h: SystemHarness;
  stripe: StripeStandIn;
  close(): Promise<void>;
}

export async function startBillingSystem(
  services: ServiceName[],
  env: Record<string, string> = {},
): Promise<BillingSystem> {
  const stripe = await startStripeStandIn();
  try {
    const h = await startSystem({
      services,
      env: {
        STRIPE_SECRET_KEY: stripe.apiKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_PRICE_ID: stripe.priceId,
        STRIPE_API_URL: stripe.baseUrl,
        STRIPE_TIMEOUT_MS: '3000',
        ...env,
      },
    });
    return {
      h,
      stripe,
      close: async () => {
        await h.close();
        await stripe.close();
      },
    };
  } catch (error) {
    await stripe.close();
    throw error;
  }
}

/** Posts a webhook exactly as Stripe does: the raw JSON bytes and the Stripe-Signature header. */
export function deliver(system: BillingSystem, webhook: { payload: string; signature: string }) {
  return request(system.h.gateway)
    .post('/v1/billing/webhook')
    .set('Content-Type', 'application/json; charset=utf-8')
    .set('Stripe-Signature', webhook.signature)
    .send(webhook.payload);
}

/**
 * Checkout through the API, payment at the stand-in (for the plan's price unless `priceId` names
 * another), then Stripe's webhooks for it. Returns the subscription id.
 */
export async function subscribe(
  system: BillingSystem,
  auth: string,
  options: { priceId?: string } = {},
): Promise<string> {
  const checkout = await request(system.h.gateway).post('/v1/billing/checkout').set('Authorization', auth);
  if (checkout.status !== 200)
    throw new Error(`checkout answered ${checkout.status}: ${JSON.stringify(checkout.body)}`);
  const sessionId = new URL((checkout.body as { url: string }).url).pathname.split('/').pop()!;
  const { session, subscription } = system.stripe.completeCheckout(sessionId, options);
  for (const webhook of [
    system.stripe.webhook('customer.subscription.created', subscription),
    system.stripe.webhook('checkout.session.completed', session),
  ]) {
    const res = await deliver(system, webhook);
    if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return subscription.id as string;
}

export interface SubscriptionBody {
  plan: string;
  status: string;
  subscribed_plan: string | null;
  current_period_end: string | null;
  cancel_at_period_end: boolean;
  limits: { connected_accounts: number; posts_per_month: number };
  usage: {
    connected_accounts: { used: number; limit: number };
    posts_this_month: { used: number; limit: number; period_start: string };
  };
}

export async function subscriptionOf(system: Pick<BillingSystem, 'h'>, auth: string): Promise<SubscriptionBody> {
  const res = await request(system.h.gateway).get('/v1/billing/subscription').set('Authorization', auth);
  if (res.status !== 200)
    throw new Error(`GET /v1/billing/subscription answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as SubscriptionBody;
}

/** Waits until both enforcing services apply the given limits (billing.plan_changed travels through the broker). */
export async function waitForLimits(
  system: Pick<BillingSystem, 'h'>,
  auth: string,
  limits: { connected_accounts: number; posts_per_month: number },
  timeoutMs = 15_000,
): Promise<SubscriptionBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await subscriptionOf(system, auth);
    if (
      body.usage.connected_accounts.limit === limits.connected_accounts &&
      body.usage.posts_this_month.limit === limits.posts_per_month
    )
      return body;
    if (Date.now() > deadline)
      throw new Error(
        `limits still ${JSON.stringify(body.usage)} after ${timeoutMs} ms, expected ${JSON.stringify(limits)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
