import Stripe from 'stripe';
import request from 'supertest';
import { createSandboxApp } from '../src/app.ts';
import { loadSandboxConfig } from '../src/config.ts';
import { startStripeSandbox, type StripeSandbox } from './support/stripe-sandbox.ts';

// The sandbox's Stripe API driven by the official SDK (stripe-node v23), as billing drives it.
describe("sandbox's Stripe API (/v1)", () => {
  let s: StripeSandbox;
  beforeAll(async () => {
    s = await startStripeSandbox();
  });
  afterAll(async () => s?.close());
  beforeEach(async () => void (await s.control('POST', '/reset')));

  const session = (customer: string, overrides: Partial<Stripe.Checkout.SessionCreateParams> = {}) =>
    s.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      line_items: [{ price: 'price_sandbox_pro', quantity: 1 }],
      success_url: 'http://127.0.0.1:8080/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://127.0.0.1:8080/billing/canceled',
      client_reference_id: 'org_1',
      metadata: { org_id: 'org_1' },
      subscription_data: { metadata: { org_id: 'org_1' } },
      ...overrides,
    });

  it('is off unless configured, and says how to turn it on', async () => {
    const app = createSandboxApp({ publicUrl: 'http://127.0.0.1:4010', allowPrivateUrls: true });
    const api = await request(app).post('/v1/customers').set('Authorization', 'Bearer sk_test_x');
    expect(api.status).toBe(404);
    expect(api.body.error).toMatchObject({
      type: 'invalid_request_error',
      message: expect.stringMatching(/SANDBOX_STRIPE_WEBHOOK_URL/),
    });
    expect((await request(app).get('/stripe/c/pay/cs_test_1')).status).toBe(404);
    expect((await request(app).post('/__sandbox/stripe/reset')).status).toBe(404);
  });

  it('needs the webhook target and its secret together', () => {
    expect(() => loadSandboxConfig({ SANDBOX_STRIPE_WEBHOOK_URL: 'http://127.0.0.1:8080/v1/billing/webhook' })).toThrow(
      /SANDBOX_STRIPE_WEBHOOK_SECRET is required/,
    );
    expect(() => loadSandboxConfig({ SANDBOX_STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toThrow(
      /SANDBOX_STRIPE_WEBHOOK_URL is required/,
    );
    expect(loadSandboxConfig({}).SANDBOX_STRIPE_PRICE_IDS).toBe('price_sandbox_pro');
  });

  it('takes test-mode secret keys only, refusing others as Stripe does (401)', async () => {
    for (const key of ['', 'sk_live_abcdefghijklmnop']) {
      const client = new Stripe(key || 'sk_test_placeholder', {
        host: '127.0.0.1',
        port: Number(new URL(s.baseUrl).port),
        protocol: 'http',
        maxNetworkRetries: 0,
      });
      if (key === '') {
        const res = await fetch(`${s.baseUrl}/v1/customers`, { method: 'POST' });
        expect(res.status).toBe(401);
        expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
          /did not provide an API key/,
        );
        continue;
      }
      await expect(client.customers.create({})).rejects.toMatchObject({
        type: 'StripeAuthenticationError',
        statusCode: 401,
      });
    }
  });

  it('creates and reads customers; an idempotent retry gets the same answer, another body with the key is refused', async () => {
    const first = await s.stripe.customers.create(
      { metadata: { org_id: 'org_1' }, description: 'Organization org_1' },
      { idempotencyKey: 'customer-create:org_1' },
    );
    expect(first).toMatchObject({
      object: 'customer',
      id: expect.stringMatching(/^cus_/),
      metadata: { org_id: 'org_1' },
    });
    const replay = await s.stripe.customers.create(
      { metadata: { org_id: 'org_1' }, description: 'Organization org_1' },
      { idempotencyKey: 'customer-create:org_1' },
    );
    expect(replay.id).toBe(first.id);
    expect(replay.lastResponse.headers['idempotent-replayed']).toBe('true');
    await expect(
      s.stripe.customers.create({ metadata: { org_id: 'org_2' } }, { idempotencyKey: 'customer-create:org_1' }),
    ).rejects.toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400 });
    expect((await s.stripe.customers.retrieve(first.id)).id).toBe(first.id);
    await expect(s.stripe.customers.retrieve('cus_missing')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
  });

  it('opens subscription checkout sessions for its prices, refusing what Stripe refuses', async () => {
    const customer = await s.stripe.customers.create({});
    const created = await session(customer.id);
    expect(created).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      customer: customer.id,
      client_reference_id: 'org_1',
      metadata: { org_id: 'org_1' },
      amount_total: 2900,
      currency: 'usd',
      subscription: null,
      url: `${s.baseUrl}/stripe/c/pay/${created.id}`,
    });
    expect((await s.stripe.checkout.sessions.retrieve(created.id)).status).toBe('open');
    await expect(session(customer.id, { line_items: [{ price: 'price_other', quantity: 1 }] })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      param: 'line_items[0][price]',
    });
    await expect(session(customer.id, { mode: 'payment' })).rejects.toMatchObject({ statusCode: 400, param: 'mode' });
    await expect(session(customer.id, { success_url: 'not a url' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'success_url',
    });
    expect((await s.stripe.checkout.sessions.expire(created.id)).status).toBe('expired');
  });

  it('takes on a customer id it does not know (the sandbox forgets on restart, billing does not)', async () => {
    const created = await session('cus_RememberedByBilling1');
    expect(created.customer).toBe('cus_RememberedByBilling1');
    const portal = await s.stripe.billingPortal.sessions.create({
      customer: 'cus_RememberedByBilling1',
      return_url: 'http://127.0.0.1:8080/billing',
    });
    expect(portal).toMatchObject({
      object: 'billing_portal.session',
      url: `${s.baseUrl}/stripe/p/session/${portal.id}`,
      return_url: 'http://127.0.0.1:8080/billing',
    });
    await expect(session('not-a-customer')).rejects.toMatchObject({ statusCode: 404, param: 'customer' });
  });

  it("lists prices and answers unknown paths in Stripe's error shape", async () => {
    const prices = await s.stripe.prices.list();
    expect(prices.data).toEqual([
      expect.objectContaining({
        id: 'price_sandbox_pro',
        type: 'recurring',
        unit_amount: 2900,
        recurring: expect.objectContaining({ interval: 'month' }),
      }),
    ]);
    expect((await s.stripe.prices.retrieve('price_sandbox_pro')).currency).toBe('usd');
    await expect(s.stripe.invoices.list()).rejects.toMatchObject({
      statusCode: 404,
      type: 'StripeInvalidRequestError',
    });
  });
});
