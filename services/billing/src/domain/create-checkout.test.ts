import { stripeFromConfig } from './stripe-client.ts';
import { createCheckout, type CheckoutDeps } from './create-checkout.ts';

// The configuration checks come before any database or Stripe call, so these need neither.
const unused = new Proxy(
  {},
  {
    get: () => {
      throw new Error('must not be reached');
    },
  },
) as never;
const deps = (overrides: Partial<CheckoutDeps>): CheckoutDeps => ({
  stripe: null,
  priceId: 'price_1',
  successUrl: 'http://x/ok',
  cancelUrl: 'http://x/no',
  customers: unused,
  orgPlans: unused,
  ...overrides,
});

describe('createCheckout configuration', () => {
  it('names STRIPE_SECRET_KEY when there is no Stripe client', async () => {
    await expect(createCheckout(deps({}), 'org_1', 'req_1')).rejects.toMatchObject({
      code: 'service_unavailable',
      status: 503,
      details: [{ setting: 'STRIPE_SECRET_KEY' }],
    });
  });

  it('names STRIPE_PRICE_ID when no price is configured', async () => {
    const stripe = stripeFromConfig({
      STRIPE_SECRET_KEY: 'sk_test_unit',
      STRIPE_API_URL: 'http://127.0.0.1:9',
      STRIPE_TIMEOUT_MS: 1000,
    });
    await expect(createCheckout(deps({ stripe, priceId: undefined }), 'org_1', 'req_1')).rejects.toMatchObject({
      code: 'service_unavailable',
      details: [{ setting: 'STRIPE_PRICE_ID' }],
    });
  });
});

describe('stripeFromConfig', () => {
  it('is null without a secret key', () => {
    expect(
      stripeFromConfig({ STRIPE_SECRET_KEY: undefined, STRIPE_API_URL: undefined, STRIPE_TIMEOUT_MS: 1000 }),
    ).toBeNull();
  });
});
