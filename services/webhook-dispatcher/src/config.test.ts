import { randomBytes } from 'node:crypto';
import { loadServiceConfig } from './config.ts';

const VAULT = { VAULT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` };

describe('webhook-dispatcher configuration', () => {
  it('keeps settled deliveries 30 days by default, beyond the 14-day replay window', () => {
    expect(loadServiceConfig(VAULT)).toMatchObject({
      WEBHOOK_DELIVERY_RETENTION_DAYS: 30,
      WEBHOOK_REPLAY_WINDOW_MS: 14 * 24 * 3600_000,
    });
  });

  it('refuses a retention shorter than the replay window: a delivery that can be replayed must still exist', () => {
    expect(() => loadServiceConfig({ ...VAULT, WEBHOOK_DELIVERY_RETENTION_DAYS: '10' })).toThrow(
      /WEBHOOK_DELIVERY_RETENTION_DAYS must cover WEBHOOK_REPLAY_WINDOW_MS/,
    );
    expect(loadServiceConfig({ ...VAULT, WEBHOOK_DELIVERY_RETENTION_DAYS: '14' }).WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(
      14,
    );
  });

  it('refuses in production the publicly known key docker-compose.yml once defaulted to, and a placeholder', () => {
    expect(() => loadServiceConfig({ ...VAULT, NODE_ENV: 'production' })).toThrow(
      /VAULT_KEYS key "k1" is one repeated byte/,
    );
    expect(() =>
      loadServiceConfig({ VAULT_KEYS: 'k1:CHANGE_ME_base64_of_32_random_bytes', NODE_ENV: 'production' }),
    ).toThrow(/VAULT_KEYS key "k1" is a placeholder/);
    expect(
      loadServiceConfig({
        VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}`,
        NODE_ENV: 'production',
        AMQP_URL: 'amqps://svc:Xk29dLq7PzW4mVb8@mq.internal:5671',
      }).NODE_ENV,
    ).toBe('production');
  });

  it('refuses ALLOW_PRIVATE_URLS in production only', () => {
    const real = { VAULT_KEYS: `k1:${randomBytes(32).toString('base64')}`, ALLOW_PRIVATE_URLS: 'true' };
    expect(() => loadServiceConfig({ ...real, NODE_ENV: 'production' })).toThrow(
      /ALLOW_PRIVATE_URLS must be false in production/,
    );
    expect(loadServiceConfig({ ...real, NODE_ENV: 'development' }).ALLOW_PRIVATE_URLS).toBe(true);
  });
});
