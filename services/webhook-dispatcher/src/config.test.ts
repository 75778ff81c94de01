import { loadServiceConfig } from './config.ts';

const VAULT = { VAULT_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` };

describe('webhook-dispatcher configuration', () => {
  it('keeps settled deliveries 30 days by default, beyond the 14-day replay window', () => {
    expect(loadServiceConfig(VAULT)).toMatchObject({ WEBHOOK_DELIVERY_RETENTION_DAYS: 30, WEBHOOK_REPLAY_WINDOW_MS: 14 * 24 * 3600_000 });
  });

  it('refuses a retention shorter than the replay window: a delivery that can be replayed must still exist', () => {
    expect(() => loadServiceConfig({ ...VAULT, WEBHOOK_DELIVERY_RETENTION_DAYS: '10' })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS must cover WEBHOOK_REPLAY_WINDOW_MS/);
    expect(loadServiceConfig({ ...VAULT, WEBHOOK_DELIVERY_RETENTION_DAYS: '14' }).WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(14);
  });
});
