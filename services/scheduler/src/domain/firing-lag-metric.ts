import { Histogram, type Registry } from 'prom-client';

/** How late scheduled jobs fire after their `scheduled_at` (the bar: within a second). */
export function firingLagMetric(registry: Registry) {
  const lag = new Histogram({
    name: 'svc_scheduler_firing_lag_seconds',
    help: "Delay between a job's scheduled time and the moment it was claimed for dispatch.",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 30, 60, 300],
    registers: [registry],
  });
  return (lagMs: number) => lag.observe(Math.max(0, lagMs) / 1000);
}
