import { uniqueName, waitFor } from '@svc/testing';
import Stripe from 'stripe';
import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';
import { subscriptionOf, waitForLimits } from './billing-support.ts';

// The development upgrade path end to end, with nothing simulated by the test: billing's SDK talks to
// the sandbox's Stripe, the hosted Checkout page is completed over HTTP as a browser completes it, and
// the sandbox's signed webhooks come back through the gateway's Stripe route.
let h: SystemHarness;
beforeAll(async () => {
  h = await startSystem({ services: ['billing', 'accounts', 'publisher'], sandboxStripe: true });
}, 90_000);
afterAll(async () => h?.close());

const FREE = { connected_accounts: 25, posts_per_month: 1000 };
const PRO = { connected_accounts: 100, posts_per_month: 10_000 };

interface SandboxEvent {
  id: string;
  type: string;
  data: { object: { id: string; customer?: string } };
  delivered: boolean;
  deliveries: { status: number | null }[];
}

async function sandboxEvents(): Promise<SandboxEvent[]> {
  const res = await fetch(`${h.sandbox.baseUrl}/__sandbox/stripe/events`);
  return ((await res.json()) as { events: SandboxEvent[] }).events;
}

/** Fills in and posts a hosted page's form as a browser does; the redirect is returned, not followed. */
function submit(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Checkout through the API, then the hosted page paid with Stripe's test card. Returns the session id. */
async function upgrade(auth: string): Promise<string> {
  const checkout = await request(h.gateway).post('/v1/billing/checkout').set('Authorization', auth);
  expect(checkout.status).toBe(200);
  const url = (checkout.body as { url: string }).url;
  expect(url).toMatch(new RegExp(`^${h.sandbox.baseUrl}/stripe/c/pay/cs_test_`));
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<label for="card_number">');
  const paid = await submit(url, {
    email: 'owner@example.com',
    cardholder_name: 'Ada Owner',
    card_number: '4242 4242 4242 4242',
    card_expiry: '12 / 40',
    card_cvc: '123',
  });
  expect(paid.status).toBe(303);
  const sessionId = url.split('/').pop()!;
  expect(paid.headers.get('location')).toBe('http://127.0.0.1:3000/billing?checkout=success');
  return sessionId;
}

it('upgrades through the hosted checkout, then the portal cancels and the free limits return', async () => {
  const auth = `Bearer ${await h.token(uniqueName('org'))}`;
  expect((await subscriptionOf({ h }, auth)).plan).toBe('free');
  const sessionId = await upgrade(auth);

  const upgraded = await waitForLimits({ h }, auth, PRO);
  expect(upgraded).toMatchObject({
    plan: 'pro',
    status: 'active',
    subscribed_plan: 'pro',
    cancel_at_period_end: false,
  });
  expect(upgraded.current_period_end).not.toBeNull();
  const completed = await waitFor(
    async () =>
      (await sandboxEvents()).find(
        (event) => event.type === 'checkout.session.completed' && event.data.object.id === sessionId,
      ),
    { what: 'the checkout.session.completed event' },
  );
  const ofCustomer = (events: SandboxEvent[]) =>
    events.filter((event) => event.data.object.customer === completed.data.object.customer);
  await waitFor(async () => ofCustomer(await sandboxEvents()).every((event) => event.delivered), {
    what: 'every event delivered',
  });
  const delivered = ofCustomer(await sandboxEvents());
  expect(delivered.map((event) => event.type)).toEqual([
    'customer.subscription.created',
    'customer.subscription.updated',
    'checkout.session.completed',
  ]);
  // Billing accepted each signature at the first attempt.
  expect(delivered.map((event) => event.deliveries.map((delivery) => delivery.status))).toEqual([[200], [200], [200]]);

  const portal = await request(h.gateway).post('/v1/billing/portal').set('Authorization', auth);
  expect(portal.status).toBe(200);
  const portalUrl = (portal.body as { url: string }).url;
  expect(portalUrl).toMatch(new RegExp(`^${h.sandbox.baseUrl}/stripe/p/session/bps_`));
  const page = await (await fetch(portalUrl)).text();
  const action = /action="(\/stripe\/p\/session\/[^"]+\/subscriptions\/sub_[^"]+)"/.exec(page);
  expect(action).not.toBeNull();
  expect(page).toContain('href="http://127.0.0.1:3000/billing"');

  expect((await submit(`${h.sandbox.baseUrl}${action![1]}`, { action: 'cancel_at_period_end' })).status).toBe(303);
  await waitFor(async () => (await subscriptionOf({ h }, auth)).cancel_at_period_end, {
    what: 'cancel_at_period_end applied',
  });
  expect((await subscriptionOf({ h }, auth)).plan).toBe('pro');

  expect((await submit(`${h.sandbox.baseUrl}${action![1]}`, { action: 'cancel_now' })).status).toBe(303);
  const downgraded = await waitForLimits({ h }, auth, FREE);
  expect(downgraded).toMatchObject({ plan: 'free', status: 'canceled' });
});

it('billing refuses a webhook not signed with its secret, and the plan stays as it was', async () => {
  const auth = `Bearer ${await h.token(uniqueName('org'))}`;
  await upgrade(auth);
  await waitForLimits({ h }, auth, PRO);
  const created = (await sandboxEvents()).filter((event) => event.type === 'customer.subscription.created').pop()!;
  const forged = JSON.stringify(
    {
      ...created,
      id: `evt_${uniqueName('forged')}`,
      type: 'customer.subscription.deleted',
      delivered: undefined,
      deliveries: undefined,
    },
    null,
    2,
  );
  const post = (signature: string, payload = forged) =>
    request(h.gateway)
      .post('/v1/billing/webhook')
      .set('Content-Type', 'application/json; charset=utf-8')
      .set('Stripe-Signature', signature)
      .send(payload);
  const wrongSecret = await post(
    Stripe.webhooks.generateTestHeaderString({ payload: forged, secret: 'whsec_notbillings' }),
  );
  expect(wrongSecret.status).toBe(400);
  expect(wrongSecret.body.error.code).toBe('validation_error');
  const rightSecretOtherBody = await post(
    Stripe.webhooks.generateTestHeaderString({ payload: forged, secret: h.env.STRIPE_WEBHOOK_SECRET! }),
    forged.replace('"livemode": false', '"livemode": true'),
  );
  expect(rightSecretOtherBody.status).toBe(400);
  expect(await subscriptionOf({ h }, auth)).toMatchObject({ plan: 'pro', status: 'active' });
});
