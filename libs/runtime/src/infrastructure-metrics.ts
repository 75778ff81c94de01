import type { PoolStats } from '@svc/db';
import type { QueueDepth } from '@svc/messaging';
import { Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The depth of the queues this process consumes, read from the broker at scrape time (a passive
 * declare per queue). Every replica of a service reports the same queues, so dashboards and alerts
 * take `max by (queue)`. A failed read reports no sample rather than a false zero.
 */
export function registerQueueGauges(registry: Registry, read: () => Promise<QueueDepth[]>): void {
  // Both gauges are collected in the same scrape: they share one read.
  let pending: Promise<QueueDepth[] | undefined> | undefined;
  const shared = () =>
    (pending ??= read()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (pending = undefined))));
  const gauge = (name: string, help: string, pick: (depth: QueueDepth) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'],
      registers: [registry],
      async collect() {
        const depths = await shared();
        this.reset();
        for (const depth of depths ?? []) this.set({ queue: depth.queue }, pick(depth));
      },
    });
  gauge('svc_queue_messages_ready', 'Messages ready for delivery in each queue this service consumes.', (d) => d.ready);
  gauge('svc_queue_consumers', 'Consumers attached to each queue this service consumes.', (d) => d.consumers);
}

/** Consumer lag: how long a message waited between its creation and its first handler run, by queue. */
export function messageWaitHistogram(registry: Registry): Histogram<'queue'> {
  return new Histogram({
    name: 'svc_message_wait_seconds',
    help: "Seconds from a message's creation (outbox included) to its first delivery to a handler, by work queue.",
    labelNames: ['queue'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
    registers: [registry],
  });
}

/**
 * Each database pool's use at scrape time, by pool (`main`, `relay`, and the pools a service opens
 * for its hot statements). Saturation is `in_use / max`; `waiting` above zero means callers queue
 * for a connection.
 */
export function registerPoolGauges(registry: Registry, pools: ReadonlyMap<string, () => PoolStats>): void {
  const each = (apply: (pool: string, stats: PoolStats) => void) => {
    for (const [pool, stats] of pools) apply(pool, stats());
  };
  new Gauge({
    name: 'svc_db_pool_connections',
    help: 'Database connections of each pool, by state (in_use, idle).',
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      each((pool, stats) => {
        this.set({ pool, state: 'in_use' }, stats.inUse);
        this.set({ pool, state: 'idle' }, stats.idle);
      });
    },
  });
  new Gauge({
    name: 'svc_db_pool_max',
    help: 'Size limit of each database pool.',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      each((pool, stats) => this.set({ pool }, stats.max));
    },
  });
  new Gauge({
    name: 'svc_db_pool_waiting',
    help: 'Callers waiting for a connection of each database pool.',
    labelNames: ['pool'],
    registers: [registry],
    collect() {
      this.reset();
      each((pool, stats) => this.set({ pool }, stats.waiting));
    },
  });
}
