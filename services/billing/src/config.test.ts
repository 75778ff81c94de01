import { ConfigError } from '@svc/config';
import { loadServiceConfig } from './config.ts';

describe('billing configuration', () => {
  it('starts without any Stripe setting (empty values count as unset)', () => {
    const config = loadServiceConfig({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', STRIPE_PRICE_ID: '' });
    expect(config.STRIPE_SECRET_KEY).toBeUndefined();
    expect(config).toMatchObject({
      PLAN_FREE_CONNECTED_ACCOUNTS: 25,
      PLAN_FREE_POSTS_PER_MONTH: 1000,
      PLAN_PRO_CONNECTED_ACCOUNTS: 100,
      PLAN_PRO_POSTS_PER_MONTH: 10_000,
    });
  });

  it('lists every malformed setting at once', () => {
    try {
      loadServiceConfig({
        STRIPE_SECRET_KEY: 'pk_live_publishable',
        STRIPE_WEBHOOK_SECRET: 'secret',
        STRIPE_API_URL: 'ftp://x',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(3);
      for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_API_URL'])
        expect(problems.some((problem) => problem.startsWith(name))).toBe(true);
    }
  });

  it('refuses a plain-http Stripe address in production', () => {
    expect(() => loadServiceConfig({ NODE_ENV: 'production', STRIPE_API_URL: 'http://127.0.0.1:12111' })).toThrow(
      /STRIPE_API_URL must be https/,
    );
  });

  it('requires the Stripe settings in production, and refuses placeholders there', () => {
    let problems: string[] = [];
    try {
      loadServiceConfig({ NODE_ENV: 'production', AMQP_URL: 'amqps://svc:Xk29dLq7PzW4mVb8@mq.internal:5671' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      'STRIPE_SECRET_KEY is required in production',
      'STRIPE_WEBHOOK_SECRET is required in production',
      'STRIPE_PRICE_ID is required in production',
    ]);
    const placeholders = {
      NODE_ENV: 'production',
      STRIPE_SECRET_KEY: 'sk_live_CHANGE_ME',
      STRIPE_WEBHOOK_SECRET: 'whsec_change-me',
      STRIPE_PRICE_ID: 'price_ChangeMe',
    };
    expect(() => loadServiceConfig(placeholders)).toThrow(
      /STRIPE_SECRET_KEY is a development or placeholder value[\s\S]*STRIPE_WEBHOOK_SECRET is a development or placeholder value[\s\S]*STRIPE_PRICE_ID is a development or placeholder value/,
    );
    const real = {
      STRIPE_SECRET_KEY: 'sk_live_51Qx7TfGk2mWcZ9rLp4Vd8NbH',
      STRIPE_WEBHOOK_SECRET: 'whsec_Hq3Zt8KfW2nRb6LmXc9VpJ4s',
      STRIPE_PRICE_ID: 'price_1Qx7UaGk2mWcZ9rLkJ3bT6Yw',
    };
    expect(
      loadServiceConfig({ NODE_ENV: 'production', AMQP_URL: 'amqps://svc:Xk29dLq7PzW4mVb8@mq.internal:5671', ...real })
        .STRIPE_PRICE_ID,
    ).toBe(real.STRIPE_PRICE_ID);
    expect(
      loadServiceConfig({ NODE_ENV: 'development', STRIPE_SECRET_KEY: 'sk_test_CHANGE_ME' }).STRIPE_WEBHOOK_SECRET,
    ).toBeUndefined();
  });
});
