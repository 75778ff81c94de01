import { Registry } from 'prom-client';
import { registerBackgroundLag } from './background-lag-metric.ts';

describe('the background lag gauge', () => {
  it('reads the lag at scrape time', async () => {
    const registry = new Registry();
    let lag = 42.5;
    registerBackgroundLag(registry, async () => lag);
    expect(await registry.metrics()).toContain('svc_analytics_background_lag_seconds 42.5');
    lag = 0;
    expect(await registry.metrics()).toContain('svc_analytics_background_lag_seconds 0');
  });

  it('answers 0 rather than failing the scrape when the database cannot be read', async () => {
    const registry = new Registry();
    registerBackgroundLag(registry, async () => {
      throw new Error('connection refused');
    });
    expect(await registry.metrics()).toContain('svc_analytics_background_lag_seconds 0');
  });
});
