import { ConfigError } from '@svc/config';
import { loadServiceConfig } from './config.ts';

describe('billing configuration', () => {
  it('starts without any Stripe setting (empty values count as unset)', () => {
    const config = loadServiceConfig({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', STRIPE_PRICE_ID: '' });
    expect(config.STRIPE_SECRET_KEY).toBeUndefined();
    expect(config).toMatchObject({ PLAN_FREE_CONNECTED_ACCOUNTS: 25, PLAN_FREE_POSTS_PER_MONTH: 1000, PLAN_PRO_CONNECTED_ACCOUNTS: 100, PLAN_PRO_POSTS_PER_MONTH: 10_000 });
  });

  it('lists every malformed setting at once', () => {
    try {
      loadServiceConfig({ STRIPE_SECRET_KEY: 'pk_live_publishable', STRIPE_WEBHOOK_SECRET: 'secret', STRIPE_API_URL: 'ftp://x' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(3);
      for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_API_URL']) expect(problems.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });

  it('refuses a plain-http Stripe address in production', () => {
    expect(() => loadServiceConfig({ NODE_ENV: 'production', STRIPE_API_URL: 'http://127.0.0.1:12111' })).toThrow(/STRIPE_API_URL must be https/);
  });
});
