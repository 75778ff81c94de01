import { Gauge, type Registry } from 'prom-client';

/**
 * How far the background sync is behind, read at scrape time: it grows when the readings due outgrow
 * what the replicas read (ANALYTICS_SYNC_MAX_READS_PER_SECOND, the batch, the networks' limits), and
 * is the signal to add replicas or raise the budget.
 */
export function registerBackgroundLag(registry: Registry, lagSeconds: () => Promise<number>): void {
  new Gauge({
    name: 'svc_analytics_background_lag_seconds',
    help: 'Seconds since the earliest next read of a reading now due (accounts paused by a rate limit left out); 0 when none is due.',
    registers: [registry],
    async collect() {
      this.set(await lagSeconds().catch(() => 0));
    },
  });
}
