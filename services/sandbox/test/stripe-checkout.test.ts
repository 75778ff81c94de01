import { waitFor } from '@svc/testing';
import type Stripe from 'stripe';
import { payCheckout, startStripeSandbox, type StripeSandbox } from './support/stripe-sandbox.ts';

// The sandbox's hosted Checkout and portal pages, completed over HTTP as a browser completes them,
// and the signed webhooks they send.
describe("sandbox's Stripe: hosted pages and webhooks", () => {
  let s: StripeSandbox;
  beforeAll(async () => {
    s = await startStripeSandbox();
  });
  afterAll(async () => s?.close());
  beforeEach(async () => {
    await s.control('POST', '/reset');
    s.received.length = 0;
  });

  async function openCheckout(): Promise<Stripe.Checkout.Session> {
    const customer = await s.stripe.customers.create({ metadata: { org_id: 'org_1' } });
    return s.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: 'price_sandbox_pro', quantity: 1 }],
      success_url: 'http://127.0.0.1:8080/billing/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://127.0.0.1:8080/billing/canceled',
      metadata: { org_id: 'org_1' },
      subscription_data: { metadata: { org_id: 'org_1' } },
    });
  }

  const types = () => s.received.map((webhook) => webhook.event.type);

  it('serves an accessible card form for an open session', async () => {
    const session = await openCheckout();
    const res = await fetch(session.url!);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<html lang="en">/);
    expect(html).toMatch(/<title>[^<]+<\/title>/);
    expect(html).toMatch(/<main>/);
    expect(html).toContain('$29.00');
    expect(html).toContain(`action="/stripe/c/pay/${session.id}"`);
    for (const field of ['email', 'cardholder_name', 'card_number', 'card_expiry', 'card_cvc']) {
      expect(html).toContain(`<label for="${field}">`);
      expect(html).toContain(`id="${field}" name="${field}"`);
    }
    expect(html).toContain('href="http://127.0.0.1:8080/billing/canceled"');
  });

  it('re-renders bad input (400) and declined test cards (402) with the problems announced, paying nothing', async () => {
    const session = await openCheckout();
    const invalid = await payCheckout(session.url!, { card_number: '4242 4242 4242 4241', card_expiry: '01 / 20' });
    expect(invalid.status).toBe(400);
    const invalidHtml = await invalid.text();
    expect(invalidHtml).toContain('role="alert"');
    expect(invalidHtml).toContain('Your card number is invalid.');
    expect(invalidHtml).toContain('Your card&#39;s expiration year is in the past.');
    expect(invalidHtml).toMatch(
      /id="card_number" name="card_number"[^>]*aria-describedby="card_number-hint card_number-error"[^>]*aria-invalid="true"/,
    );
    const declined = await payCheckout(session.url!, { card_number: '4000 0000 0000 0002' });
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain('Your card was declined.');
    expect((await s.stripe.checkout.sessions.retrieve(session.id)).status).toBe('open');
    expect((await (await s.control('GET', '/events')).json()) as unknown).toEqual({ events: [] });
  });

  it('pays: redirects to success_url and sends signed subscription created, updated and checkout completed', async () => {
    const session = await openCheckout();
    const paid = await payCheckout(session.url!);
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`http://127.0.0.1:8080/billing/success?session_id=${session.id}`);
    await waitFor(() => s.received.length === 3, { what: 'three webhooks' });
    expect(types()).toEqual([
      'customer.subscription.created',
      'customer.subscription.updated',
      'checkout.session.completed',
    ]);
    const [created, updated, completed] = s.received.map((webhook) => webhook.event);
    expect(s.received[0]!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(s.received[0]!.userAgent).toMatch(/^Stripe\/1\.0/);
    expect(created!.api_version).toBe(s.stripe.getApiField('version'));
    const subscription = created!.data.object as Stripe.Subscription;
    expect(subscription).toMatchObject({
      status: 'incomplete',
      customer: session.customer,
      metadata: { org_id: 'org_1' },
    });
    expect(updated!.data).toMatchObject({
      object: { id: subscription.id, status: 'active' },
      previous_attributes: { status: 'incomplete' },
    });
    expect(completed!.data.object).toMatchObject({
      id: session.id,
      status: 'complete',
      payment_status: 'paid',
      subscription: subscription.id,
      customer: session.customer,
      customer_details: expect.objectContaining({ email: 'owner@example.com', name: 'Ada Owner' }),
    });
    const current = await s.stripe.subscriptions.retrieve(subscription.id);
    expect(current).toMatchObject({ status: 'active', cancel_at_period_end: false });
    expect(current.items.data[0]).toMatchObject({ price: { id: 'price_sandbox_pro' }, quantity: 1 });
    expect(current.items.data[0]!.current_period_end).toBeGreaterThan(current.items.data[0]!.current_period_start);
    // Posting the form again (a double click, the back button) pays nothing more.
    expect((await payCheckout(session.url!)).status).toBe(303);
    expect((await fetch(session.url!, { redirect: 'manual' })).status).toBe(303);
    expect((await s.stripe.subscriptions.list({ customer: session.customer as string })).data).toHaveLength(1);
    const events = ((await (await s.control('GET', '/events')).json()) as { events: { delivered: boolean }[] }).events;
    expect(events).toHaveLength(3);
    expect(events.every((event) => event.delivered)).toBe(true);
  });

  it('redelivers an event the endpoint did not accept, signed afresh', async () => {
    s.refuseNext(1, 500);
    const session = await openCheckout();
    await payCheckout(session.url!);
    await waitFor(() => s.received.length === 3, { what: 'three webhooks, the first redelivered' });
    const events = (
      (await (await s.control('GET', '/events')).json()) as {
        events: { type: string; deliveries: { status: number }[] }[];
      }
    ).events;
    expect(events[0]!.deliveries.map((delivery) => delivery.status)).toEqual([500, 200]);
    expect(types()).toContain('customer.subscription.created');
  });

  it('the portal cancels at the period end, renews and cancels now, each with its webhook', async () => {
    const session = await openCheckout();
    await payCheckout(session.url!);
    await waitFor(() => s.received.length === 3, { what: 'checkout webhooks' });
    const subscriptionId = (s.received[0]!.event.data.object as Stripe.Subscription).id;
    const portal = await s.stripe.billingPortal.sessions.create({
      customer: session.customer as string,
      return_url: 'http://127.0.0.1:8080/billing',
    });
    const page = await (await fetch(portal.url)).text();
    expect(page).toContain('$29.00');
    expect(page).toContain('href="http://127.0.0.1:8080/billing"');
    const act = (action: string) =>
      fetch(`${s.baseUrl}/stripe/p/session/${portal.id}/subscriptions/${subscriptionId}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `action=${action}`,
      });
    const scheduled = await act('cancel_at_period_end');
    expect(scheduled.status).toBe(303);
    expect(await (await fetch(`${s.baseUrl}${scheduled.headers.get('location')!}`)).text()).toMatch(
      /role="status"[^<]*at the end of the billing period/,
    );
    expect((await s.stripe.subscriptions.retrieve(subscriptionId)).cancel_at_period_end).toBe(true);
    expect((await act('renew')).status).toBe(303);
    expect((await act('cancel_now')).status).toBe(303);
    expect((await act('explode')).status).toBe(400);
    await waitFor(() => s.received.length === 6, { what: 'portal webhooks' });
    expect(types().slice(3)).toEqual([
      'customer.subscription.updated',
      'customer.subscription.updated',
      'customer.subscription.deleted',
    ]);
    expect(s.received[3]!.event.data.previous_attributes).toEqual({ cancel_at_period_end: false, cancel_at: null });
    expect((await s.stripe.subscriptions.retrieve(subscriptionId)).status).toBe('canceled');
    expect((await s.stripe.subscriptions.list({ customer: session.customer as string })).data).toHaveLength(0);
  });

  it('the control API moves a subscription to past_due, and its reset forgets the account while network resets do not', async () => {
    const session = await openCheckout();
    await payCheckout(session.url!);
    await waitFor(() => s.received.length === 3, { what: 'checkout webhooks' });
    const subscriptionId = (s.received[0]!.event.data.object as Stripe.Subscription).id;
    expect((await s.control('POST', `/subscriptions/${subscriptionId}/status`, { status: 'sleeping' })).status).toBe(
      400,
    );
    expect((await s.control('POST', `/subscriptions/${subscriptionId}/status`, { status: 'past_due' })).status).toBe(
      200,
    );
    await waitFor(() => s.received.length === 4, { what: 'the past_due webhook' });
    expect(s.received[3]!.event.data).toMatchObject({
      object: { status: 'past_due' },
      previous_attributes: { status: 'active' },
    });
    expect((await fetch(`${s.baseUrl}/__sandbox/reset`, { method: 'POST' })).status).toBe(204);
    expect((await s.stripe.subscriptions.retrieve(subscriptionId)).status).toBe('past_due');
    expect((await s.control('POST', '/reset')).status).toBe(204);
    await expect(s.stripe.subscriptions.retrieve(subscriptionId)).rejects.toMatchObject({ statusCode: 404 });
    expect((await fetch(session.url!)).status).toBe(404);
  });
});
