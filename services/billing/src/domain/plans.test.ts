import { Plans, type SubscriptionState } from './plans.ts';

const plans = new Plans(
  {
    free: { connected_accounts: 25, posts_per_month: 1000 },
    pro: { connected_accounts: 100, posts_per_month: 10_000 },
  },
  ['price_pro', 'price_pro_2025'],
);
const sub = (id: string, status: string, created: string, priceId: string | null = 'price_pro'): SubscriptionState => ({
  id,
  status,
  priceId,
  stripeCreatedAt: new Date(created),
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
});

describe('Plans.effective', () => {
  it('is the free plan with status none without subscriptions', () => {
    expect(plans.effective([])).toEqual({
      plan: 'free',
      status: 'none',
      subscription: null,
      limits: { connected_accounts: 25, posts_per_month: 1000 },
    });
  });

  it.each(['active', 'trialing', 'past_due'])('keeps the paid limits while %s', (status) => {
    expect(plans.effective([sub('sub_1', status, '2026-01-01')])).toMatchObject({
      plan: 'pro',
      status,
      limits: { posts_per_month: 10_000 },
    });
  });

  it.each(['canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'])(
    'falls back to the free limits when %s',
    (status) => {
      expect(plans.effective([sub('sub_1', status, '2026-01-01')])).toMatchObject({
        plan: 'free',
        status,
        limits: { posts_per_month: 1000 },
      });
    },
  );

  it('prefers a paying subscription over a newer canceled one, in any order', () => {
    const subs = [sub('sub_new', 'canceled', '2026-03-01'), sub('sub_old', 'active', '2026-01-01')];
    expect(plans.effective(subs).subscription?.id).toBe('sub_old');
    expect(plans.effective([...subs].reverse()).subscription?.id).toBe('sub_old');
  });

  it('names the newest subscription when none pays', () => {
    expect(
      plans.effective([sub('sub_a', 'canceled', '2026-01-01'), sub('sub_b', 'unpaid', '2026-02-01')]),
    ).toMatchObject({ plan: 'free', status: 'unpaid' });
  });

  it('gives the free plan for a paying subscription to any other price, whatever its status', () => {
    expect(plans.effective([sub('sub_other', 'active', '2026-01-01', 'price_other')])).toEqual({
      plan: 'free',
      status: 'none',
      subscription: null,
      limits: { connected_accounts: 25, posts_per_month: 1000 },
    });
    expect(plans.effective([sub('sub_none', 'active', '2026-01-01', null)]).plan).toBe('free');
  });

  it('keeps the paid plan on an earlier price still honoured, and lets another price neither grant nor hide it', () => {
    expect(plans.effective([sub('sub_2025', 'active', '2025-01-01', 'price_pro_2025')]).plan).toBe('pro');
    const subs = [sub('sub_other', 'canceled', '2026-03-01', 'price_other'), sub('sub_pro', 'past_due', '2026-01-01')];
    expect(plans.effective(subs)).toMatchObject({ plan: 'pro', status: 'past_due', subscription: { id: 'sub_pro' } });
  });
});

describe('Plans.subscribedPrice', () => {
  it("records the paid plan's price when one of the items is for it, else the first item's", () => {
    expect(plans.subscribedPrice(['price_addon', 'price_pro'])).toBe('price_pro');
    expect(plans.subscribedPrice(['price_addon', 'price_other'])).toBe('price_addon');
    expect(plans.subscribedPrice([])).toBeNull();
  });
});
