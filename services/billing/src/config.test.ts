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
      expect((error as ConfigError).problems.join('\n')).toMatch(/STRIPE_SECRET_KEY[\s\S]*STRIPE_WEBHOOK_SECRET[\s\S]*STRIPE_API_URL|STRIPE_API_URL[\s\S]*STRIPE_SECRET_KEY/);
      expect((error as ConfigError).problems).toHaveLength(3);
    }
  });

  it('refuses a plain-http Stripe address in production', () => {
    expect(() => loadServiceConfig({ NODE_ENV: 'production', STRIPE_API_URL: 'http://127.0.0.1:12111' })).toThrow(/STRIPE_API_URL must be https/);
  });
});
