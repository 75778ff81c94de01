import request from 'supertest';
import { startSystem, type SystemHarness } from '../support/system-harness.ts';

// scripts/start runs without Stripe credentials: everything starts, and the billing actions that need
// Stripe answer 503 naming the missing setting instead of failing obscurely.
let h: SystemHarness;
beforeAll(async () => {
  h = await startSystem({ services: ['billing', 'accounts', 'publisher'] });
}, 90_000);
afterAll(async () => {
  await h?.close();
});

describe('billing without Stripe settings', () => {
  it('checkout and portal answer 503 naming STRIPE_SECRET_KEY', async () => {
    const auth = `Bearer ${await h.token()}`;
    for (const path of ['/v1/billing/checkout', '/v1/billing/portal']) {
      const res = await request(h.gateway).post(path).set('Authorization', auth);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({
        code: 'service_unavailable',
        details: [expect.objectContaining({ setting: 'STRIPE_SECRET_KEY' })],
      });
      expect(res.body.error.message).toMatch(/STRIPE_SECRET_KEY is not set/);
    }
  });

  it('the webhook answers 503 naming STRIPE_WEBHOOK_SECRET (Stripe retries it later)', async () => {
    const res = await request(h.gateway)
      .post('/v1/billing/webhook')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', 't=1,v1=00')
      .send('{"id":"evt_1","object":"event"}');
    expect(res.status).toBe(503);
    expect(res.body.error.message).toMatch(/STRIPE_WEBHOOK_SECRET is not set/);
  });

  it('the subscription still answers: the free plan and its usage', async () => {
    const res = await request(h.gateway)
      .get('/v1/billing/subscription')
      .set('Authorization', `Bearer ${await h.token()}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      plan: 'free',
      status: 'none',
      limits: { connected_accounts: 25, posts_per_month: 1000 },
      usage: { connected_accounts: { used: 0, limit: 25 }, posts_this_month: { used: 0, limit: 1000 } },
    });
  });
});
