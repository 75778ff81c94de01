import { uniqueName } from '@svc/testing';
import Stripe from 'stripe';
import request from 'supertest';
import { tapMessages, type MessageTap } from '../support/message-tap.ts';
import {
  deliver,
  startBillingSystem,
  subscribe,
  subscriptionOf,
  waitForLimits,
  type BillingSystem,
} from './billing-support.ts';

// Billing end to end: the gateway, billing (SDK -> Stripe stand-in), and the two services that count
// usage. Plan limits use the defaults here (free 25/1,000, pro 100/10,000).
let s: BillingSystem;
let tap: MessageTap;
beforeAll(async () => {
  // A retention pass every second, so the retention test below sees one (the default is hourly).
  s = await startBillingSystem(['billing', 'accounts', 'publisher'], { PRUNE_INTERVAL_MS: '1000' });
  tap = await tapMessages(s.h.namespace, ['billing.plan_changed.v1']);
}, 90_000);
afterAll(async () => {
  await tap?.close();
  await s?.close();
});

const FREE = { connected_accounts: 25, posts_per_month: 1000 };
const PRO = { connected_accounts: 100, posts_per_month: 10_000 };

type Db = { $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T> };
const billingDb = () => s.h.workers.billing!.runtime.db as unknown as Db;

/** The organization's plan announcements on the broker, by revision, once `count` have arrived. */
async function planAnnouncements(
  orgId: string,
  count: number,
): Promise<{ revision: number; plan: string; status: string }[]> {
  const ofOrg = (envelopes: MessageTap['envelopes']) => envelopes.filter((envelope) => envelope.org_id === orgId);
  const seen = ofOrg(await tap.until((envelopes) => ofOrg(envelopes).length >= count));
  return seen
    .map((envelope) => envelope.payload as { revision: number; plan: string; status: string })
    .sort((a, b) => a.revision - b.revision);
}

const customerCreates = (orgId: string) =>
  s.stripe.requests.filter(
    (r) => r.path === '/v1/customers' && (r.body.metadata as { org_id?: string } | undefined)?.org_id === orgId,
  );

describe('authentication of the billing endpoints', () => {
  it.each([
    ['post', '/v1/billing/checkout'],
    ['post', '/v1/billing/portal'],
    ['get', '/v1/billing/subscription'],
  ] as const)('%s %s: 401 without a credential, 403 with an API key', async (method, path) => {
    const none = await request(s.h.gateway)[method](path);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    const key = await s.h.apiKey(uniqueName('org'));
    const withKey = await request(s.h.gateway)[method](path).set('Authorization', `Bearer ${key}`);
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe('forbidden');
  });

  it('the webhook takes no credential but refuses a request without a well-formed Stripe signature', async () => {
    const missing = await request(s.h.gateway)
      .post('/v1/billing/webhook')
      .set('Content-Type', 'application/json')
      .send('{"id":"evt_1"}');
    const malformed = await request(s.h.gateway)
      .post('/v1/billing/webhook')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', 'sha256=abc')
      .send('{"id":"evt_1"}');
    for (const res of [missing, malformed]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.message).toMatch(/Stripe-Signature/);
    }
  });
});

describe('checkout', () => {
  it('answers the Checkout Session URL made through the SDK, in subscription mode for the configured price', async () => {
    const orgId = uniqueName('org');
    const res = await request(s.h.gateway)
      .post('/v1/billing/checkout')
      .set('Authorization', `Bearer ${await s.h.token(orgId)}`);
    expect(res.status).toBe(200);
    const sessionId = new URL(res.body.url as string).pathname.split('/').pop()!;
    const session = s.stripe.sessions.get(sessionId)!;
    expect(res.body).toEqual({ url: session.url });
    expect(session).toMatchObject({ mode: 'subscription', client_reference_id: orgId, metadata: { org_id: orgId } });
    const call = s.stripe.requests.find(
      (r) => r.path === '/v1/checkout/sessions' && r.body.client_reference_id === orgId,
    )!;
    expect(call.body).toMatchObject({
      mode: 'subscription',
      line_items: [{ price: s.stripe.priceId, quantity: '1' }],
      subscription_data: { metadata: { org_id: orgId } },
    });
    expect(call.idempotencyKey).toMatch(new RegExp(`^checkout:${orgId}:`));
    expect(customerCreates(orgId)).toHaveLength(1);
  });

  it("reuses the organization's customer, and gives each organization its own", async () => {
    const a = uniqueName('org');
    const b = uniqueName('org');
    const authA = `Bearer ${await s.h.token(a)}`;
    await request(s.h.gateway).post('/v1/billing/checkout').set('Authorization', authA).expect(200);
    await request(s.h.gateway).post('/v1/billing/checkout').set('Authorization', authA).expect(200);
    await request(s.h.gateway)
      .post('/v1/billing/checkout')
      .set('Authorization', `Bearer ${await s.h.token(b)}`)
      .expect(200);
    expect(customerCreates(a)).toHaveLength(1);
    const sessionsOf = (orgId: string) =>
      [...s.stripe.sessions.values()]
        .filter((session) => session.client_reference_id === orgId)
        .map((session) => session.customer);
    const [first, second] = sessionsOf(a);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(sessionsOf(b)[0]).not.toBe(first);
  });

  it('two first checkouts racing end with one Stripe customer (idempotency key per organization)', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const results = await Promise.all(
      [1, 2, 3].map(() => request(s.h.gateway).post('/v1/billing/checkout').set('Authorization', auth)),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(customerCreates(orgId).filter((r) => !r.replayed)).toHaveLength(1);
    expect(
      [...s.stripe.customers.values()].filter((c) => (c.metadata as { org_id?: string }).org_id === orgId),
    ).toHaveLength(1);
    const customers = new Set(
      [...s.stripe.sessions.values()]
        .filter((session) => session.client_reference_id === orgId)
        .map((session) => session.customer),
    );
    expect(customers.size).toBe(1);
  });

  it('answers 503 service_unavailable when Stripe keeps failing', async () => {
    const auth = `Bearer ${await s.h.token()}`;
    s.stripe.failNext(3, 500);
    const res = await request(s.h.gateway).post('/v1/billing/checkout').set('Authorization', auth);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.body.error.message).toMatch(/^Stripe could not/);
  });
});

describe('webhooks', () => {
  it('checkout completion moves the organization to the paid plan, announced once', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    expect(await subscriptionOf(s, auth)).toMatchObject({
      plan: 'free',
      status: 'none',
      subscribed_plan: null,
      current_period_end: null,
      limits: FREE,
    });
    const subscriptionId = await subscribe(s, auth);
    const body = await waitForLimits(s, auth, PRO);
    const periodEnd = (s.stripe.subscriptions.get(subscriptionId)!.items as { data: { current_period_end: number }[] })
      .data[0]!.current_period_end;
    expect(body).toMatchObject({
      plan: 'pro',
      status: 'active',
      subscribed_plan: 'pro',
      cancel_at_period_end: false,
      limits: PRO,
    });
    expect(body.current_period_end).toBe(new Date(periodEnd * 1000).toISOString());
    expect(await planAnnouncements(orgId, 1)).toEqual([{ plan: 'pro', status: 'active', revision: 1, limits: PRO }]);
  });

  it('applies an event delivered several times (also concurrently) once', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const subscriptionId = await subscribe(s, auth);
    const canceled = s.stripe.updateSubscription(subscriptionId, { status: 'canceled' });
    const event = s.stripe.webhook('customer.subscription.deleted', canceled);
    const concurrent = await Promise.all([deliver(s, event), deliver(s, event), deliver(s, event)]);
    expect(concurrent.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(concurrent.filter((r) => r.body.duplicate === false).map((r) => r.body)).toEqual([
      { received: true, event_id: event.id, duplicate: false },
    ]);
    const later = await deliver(s, event);
    expect([later.status, later.body.duplicate]).toEqual([200, true]);
    const [row] = await billingDb().$queryRawUnsafe<{ n: bigint }[]>(
      'SELECT count(*) AS n FROM stripe_events WHERE id = $1',
      event.id,
    );
    expect(Number(row!.n)).toBe(1);
    expect((await planAnnouncements(orgId, 2)).map((p) => [p.revision, p.plan, p.status])).toEqual([
      [1, 'pro', 'active'],
      [2, 'free', 'canceled'],
    ]);
  });

  it('refuses a bad signature, a wrong secret and a stale timestamp, applying nothing', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const subscriptionId = await subscribe(s, auth);
    const canceled = s.stripe.updateSubscription(subscriptionId, { status: 'canceled' });
    const good = s.stripe.webhook('customer.subscription.deleted', canceled);
    const tampered = {
      payload: good.payload.replace('"livemode": false', '"livemode": true'),
      signature: good.signature,
    };
    const otherSecret = s.stripe.webhook('customer.subscription.deleted', canceled, {
      secret: 'whsec_not_the_endpoint_secret',
    });
    const stale = {
      payload: good.payload,
      signature: Stripe.webhooks.generateTestHeaderString({
        payload: good.payload,
        secret: s.stripe.webhookSecret,
        timestamp: Math.floor(Date.now() / 1000) - 3600,
      }),
    };
    const reparsed = { payload: JSON.stringify(JSON.parse(good.payload)), signature: good.signature };
    for (const webhook of [tampered, otherSecret, stale, reparsed]) {
      const res = await deliver(s, webhook);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect(await subscriptionOf(s, auth)).toMatchObject({ plan: 'pro', status: 'active' });
  });

  it("resolves out-of-order events by the subscription's own state", async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const subscriptionId = await subscribe(s, auth);
    const activeCopy = structuredClone(s.stripe.subscriptions.get(subscriptionId)!);
    const staleUpdate = s.stripe.webhook(
      'customer.subscription.updated',
      { ...activeCopy, cancel_at_period_end: true },
      { created: Math.floor(Date.now() / 1000) - 60 },
    );
    const deleted = s.stripe.webhook(
      'customer.subscription.deleted',
      s.stripe.updateSubscription(subscriptionId, { status: 'canceled' }),
    );
    expect((await deliver(s, deleted)).status).toBe(200);
    expect((await deliver(s, staleUpdate)).status).toBe(200);
    expect(await subscriptionOf(s, auth)).toMatchObject({
      plan: 'free',
      status: 'canceled',
      subscribed_plan: 'pro',
      limits: FREE,
    });
    await waitForLimits(s, auth, FREE);
  });

  it('a failed payment keeps the paid plan while Stripe retries (past_due); unpaid falls back to free', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const subscriptionId = await subscribe(s, auth);
    const pastDue = s.stripe.updateSubscription(subscriptionId, { status: 'past_due' });
    const invoice = {
      id: 'in_failed_1',
      object: 'invoice',
      customer: pastDue.customer,
      status: 'open',
      attempted: true,
      attempt_count: 1,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: subscriptionId, metadata: { org_id: orgId } },
      },
    };
    expect((await deliver(s, s.stripe.webhook('invoice.payment_failed', invoice))).status).toBe(200);
    expect(await subscriptionOf(s, auth)).toMatchObject({ plan: 'pro', status: 'past_due', limits: PRO });
    const unpaid = s.stripe.updateSubscription(subscriptionId, { status: 'unpaid' });
    expect((await deliver(s, s.stripe.webhook('customer.subscription.updated', unpaid))).status).toBe(200);
    expect(await subscriptionOf(s, auth)).toMatchObject({ plan: 'free', status: 'unpaid', limits: FREE });
    await waitForLimits(s, auth, FREE);
  });

  it("gives the free plan to a paying subscription whose price is not the paid plan's (STRIPE_PRICE_ID)", async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const subscriptionId = await subscribe(s, auth, { priceId: 'price_another_product' });
    const [row] = await billingDb().$queryRawUnsafe<{ price_id: string; status: string }[]>(
      'SELECT price_id, status FROM subscriptions WHERE id = $1',
      subscriptionId,
    );
    expect(row).toEqual({ price_id: 'price_another_product', status: 'active' });
    expect(await subscriptionOf(s, auth)).toMatchObject({
      plan: 'free',
      status: 'none',
      subscribed_plan: null,
      limits: FREE,
    });
    // What the enforcing services were told: never the paid plan.
    const announced = await billingDb().$queryRawUnsafe<{ plan: string }[]>(
      'SELECT plan FROM org_plans WHERE org_id = $1',
      orgId,
    );
    expect(announced.filter((row) => row.plan !== 'free')).toEqual([]);
  });

  it('applies no event of a customer billing did not create, whatever organization the event names; each is answered 200', async () => {
    const victim = uniqueName('org');
    const auth = `Bearer ${await s.h.token(victim)}`;
    // A subscription made elsewhere on the same Stripe account (a Payment Link takes any client_reference_id).
    const customer = uniqueName('cus_elsewhere');
    const foreign = s.stripe.createSubscription({ customer, metadata: { org_id: victim } });
    const session = {
      id: uniqueName('cs_elsewhere'),
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      payment_status: 'paid',
      customer,
      client_reference_id: victim,
      metadata: { org_id: victim },
      subscription: foreign.id,
    };
    const invoice = {
      id: uniqueName('in_elsewhere'),
      object: 'invoice',
      customer,
      status: 'open',
      attempted: true,
      attempt_count: 1,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: foreign.id, metadata: { org_id: victim } },
      },
    };
    const events = [
      s.stripe.webhook('customer.subscription.created', foreign),
      s.stripe.webhook('checkout.session.completed', session),
      s.stripe.webhook('invoice.payment_failed', invoice),
    ];
    for (const event of events) {
      const res = await deliver(s, event);
      expect([res.status, res.body]).toEqual([200, { received: true, event_id: event.id, duplicate: false }]);
    }
    expect(await subscriptionOf(s, auth)).toMatchObject({
      plan: 'free',
      status: 'none',
      subscribed_plan: null,
      limits: FREE,
    });
    const db = billingDb();
    const recorded = await db.$queryRawUnsafe<{ org_id: string | null }[]>(
      'SELECT org_id FROM stripe_events WHERE id = ANY($1)',
      events.map((event) => event.id),
    );
    expect(recorded).toEqual([{ org_id: null }, { org_id: null }, { org_id: null }]);
    const [kept] = await db.$queryRawUnsafe<{ subscriptions: bigint; customers: bigint; plans: bigint }[]>(
      `SELECT (SELECT count(*) FROM subscriptions WHERE id = $1) AS subscriptions, (SELECT count(*) FROM customers WHERE stripe_customer_id = $2 OR org_id = $3) AS customers,
              (SELECT count(*) FROM org_plans WHERE org_id = $3) AS plans`,
      foreign.id,
      customer,
      victim,
    );
    expect([Number(kept!.subscriptions), Number(kept!.customers), Number(kept!.plans)]).toEqual([0, 0, 0]);
  });

  it('records and ignores event types that do not concern a plan', async () => {
    const res = await deliver(s, s.stripe.webhook('customer.created', { id: 'cus_x', object: 'customer' }));
    expect(res.status).toBe(200);
    expect(res.body.duplicate).toBe(false);
  });
});

describe('portal, repeated checkout and tenant isolation', () => {
  it('opens the portal for a subscribed organization and refuses a second checkout', async () => {
    const orgId = uniqueName('org');
    const auth = `Bearer ${await s.h.token(orgId)}`;
    const before = await request(s.h.gateway).post('/v1/billing/portal').set('Authorization', auth);
    expect(before.status).toBe(409);
    await subscribe(s, auth);
    await waitForLimits(s, auth, PRO);
    const portal = await request(s.h.gateway).post('/v1/billing/portal').set('Authorization', auth);
    expect(portal.status).toBe(200);
    expect(portal.body.url).toMatch(/\/p\/session\/bps_/);
    const call = s.stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').pop()!;
    const customer = [...s.stripe.customers.values()].find(
      (c) => (c.metadata as { org_id?: string }).org_id === orgId,
    )!;
    expect(call.body).toMatchObject({ customer: customer.id, return_url: 'http://127.0.0.1:3000/billing' });
    const again = await request(s.h.gateway).post('/v1/billing/checkout').set('Authorization', auth);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/portal/);
  });

  it("one organization's subscription changes nothing for another", async () => {
    const a = `Bearer ${await s.h.token()}`;
    const b = `Bearer ${await s.h.token()}`;
    await subscribe(s, a);
    await waitForLimits(s, a, PRO);
    expect(await subscriptionOf(s, b)).toMatchObject({
      plan: 'free',
      status: 'none',
      limits: FREE,
      usage: { connected_accounts: { used: 0, limit: 25 }, posts_this_month: { used: 0, limit: 1000 } },
    });
    expect((await request(s.h.gateway).post('/v1/billing/portal').set('Authorization', b)).status).toBe(409);
  });
});

describe('retention', () => {
  it('forgets Stripe event ids past STRIPE_EVENTS_RETENTION_DAYS (30) and inbox ids past INBOX_RETENTION_HOURS (168), and keeps recent ones', async () => {
    const db = billingDb();
    const [oldEvent, newEvent, oldMessage, newMessage] = ['evt_old', 'evt_new', 'msg_old', 'msg_new'].map(uniqueName);
    await db.$queryRawUnsafe(
      `INSERT INTO stripe_events (id, type, stripe_created_at, processed_at)
       VALUES ($1, 'invoice.paid', now() - interval '31 days', now() - interval '31 days'), ($2, 'invoice.paid', now() - interval '29 days', now() - interval '29 days')`,
      oldEvent,
      newEvent,
    );
    await db.$queryRawUnsafe(
      `INSERT INTO processed_messages (consumer, message_id, processed_at)
       VALUES ('retention-test', $1, now() - interval '169 hours'), ('retention-test', $2, now() - interval '167 hours')`,
      oldMessage,
      newMessage,
    );
    const ids = async () => [
      ...(
        await db.$queryRawUnsafe<{ id: string }[]>('SELECT id FROM stripe_events WHERE id = ANY($1)', [
          oldEvent,
          newEvent,
        ])
      ).map((row) => row.id),
      ...(
        await db.$queryRawUnsafe<{ id: string }[]>(
          'SELECT message_id AS id FROM processed_messages WHERE message_id = ANY($1)',
          [oldMessage, newMessage],
        )
      ).map((row) => row.id),
    ];
    const deadline = Date.now() + 15_000;
    while ((await ids()).length > 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await ids()).sort()).toEqual([newEvent, newMessage].sort());
  });
});
