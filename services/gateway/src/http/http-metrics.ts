import { Histogram, type Registry } from 'prom-client';

/** Request duration by method, declared route (not raw path, to bound cardinality) and status. */
export function createHttpMetrics(registry: Registry) {
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (labels: { method: string; route: string; status: number }, seconds: number) =>
    histogram.observe({ ...labels, status: String(labels.status) }, seconds);
}
