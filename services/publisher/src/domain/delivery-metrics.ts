import { Counter, type Registry } from 'prom-client';

/** Network attempts by network, outcome and error code: the first place to look when posts fail. */
export function deliveryMetrics(registry: Registry) {
  const attempts = new Counter({
    name: 'svc_delivery_attempts_total',
    help: 'Delivery attempts to the networks by provider, outcome (published, retry, failed) and error code.',
    labelNames: ['provider', 'outcome', 'code'],
    registers: [registry],
  });
  return (provider: string, outcome: string, code: string) => attempts.inc({ provider, outcome, code });
}
