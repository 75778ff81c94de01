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

/** Deliveries put back because their organization was at DELIVERY_ORG_CONCURRENCY: a tenant saturating its share. */
export function deliveryDeferredMetric(registry: Registry) {
  const deferred = new Counter({
    name: 'svc_delivery_org_deferred_total',
    help: 'Deliveries set waiting for a slot because their organization had DELIVERY_ORG_CONCURRENCY deliveries in flight, or stored waiting at accept because its deliveries waited already, by provider.',
    labelNames: ['provider'],
    registers: [registry],
  });
  return (provider: string) => deferred.inc({ provider });
}
