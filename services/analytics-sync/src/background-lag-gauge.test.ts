import { createServiceMetrics, registerScrapedGauge } from '@svc/runtime';
import { BACKGROUND_LAG_GAUGE } from './wiring.ts';

describe('the background lag gauge', () => {
  it('reads the lag at scrape time', async () => {
    const { registry } = createServiceMetrics('analytics-sync');
    let lag = 42.5;
    registerScrapedGauge(registry, BACKGROUND_LAG_GAUGE, async () => lag);
    expect(await registry.metrics()).toContain('svc_analytics_background_lag_seconds{service="analytics-sync"} 42.5');
    lag = 0;
    expect(await registry.metrics()).toContain('svc_analytics_background_lag_seconds{service="analytics-sync"} 0');
  });

  it('answers 0 rather than failing the scrape when the database cannot be read', async () => {
    const { registry } = createServiceMetrics('analytics-sync');
    registerScrapedGauge(registry, BACKGROUND_LAG_GAUGE, async () => {
      throw new Error('connection refused');
    });
    expect(await registry.metrics()).toContain('svc_analytics_background_lag_seconds{service="analytics-sync"} 0');
  });
});
