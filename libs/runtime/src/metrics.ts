import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  messagesPublished: Counter<'type'>;
  messagesConsumed: Counter<'type' | 'outcome'>;
  handlerSeconds: Histogram<'type'>;
  brokerReconnects: Counter;
  outboxParked: Counter<'type' | 'reason'>;
}

/** One registry per process, labelled with the service name, with Node's default metrics. */
export function createServiceMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    messagesPublished: new Counter({
      name: 'svc_messages_published_total',
      help: 'Messages confirmed by the broker.',
      labelNames: ['type'],
      registers: [registry],
    }),
    messagesConsumed: new Counter({
      name: 'svc_messages_consumed_total',
      help: 'Messages handled, by outcome (ack, retry, parked).',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
    handlerSeconds: new Histogram({
      name: 'svc_message_handler_seconds',
      help: 'Time spent in message handlers.',
      labelNames: ['type'],
      buckets: [0.005, 0.02, 0.1, 0.5, 1, 2.5, 10, 30],
      registers: [registry],
    }),
    brokerReconnects: new Counter({
      name: 'svc_broker_reconnects_total',
      help: 'Reconnections to RabbitMQ.',
      registers: [registry],
    }),
    outboxParked: new Counter({
      name: 'svc_outbox_parked_total',
      help: 'Outbox messages the relay gave up on (refused past the attempt budget, or unpublishable).',
      labelNames: ['type', 'reason'],
      registers: [registry],
    }),
  };
}

/** A labelled counter on the service's registry, for a service that has no prom-client of its own: returns its increment. */
export function registerCounter<L extends string>(
  registry: Registry,
  counter: { name: string; help: string; labelNames: readonly L[] },
): (labels: Record<L, string>) => void {
  const metric = new Counter<L>({ ...counter, labelNames: [...counter.labelNames], registers: [registry] });
  return (labels) => metric.inc(labels as Partial<Record<L, string>>);
}

/**
 * A gauge whose value is read (usually from the database) at scrape time. A read that fails reports 0
 * rather than failing the whole scrape: the other metrics still get through.
 */
export function registerScrapedGauge(
  registry: Registry,
  gauge: { name: string; help: string },
  read: () => Promise<number>,
): void {
  new Gauge({
    ...gauge,
    registers: [registry],
    async collect() {
      this.set(await read().catch(() => 0));
    },
  });
}

/**
 * The outbox read at scrape time: rows parked (alert when above zero) and the age of the oldest row
 * still to publish (alert when minutes: the relay or the broker is stuck).
 */
export function registerOutboxGauges(
  registry: Registry,
  outbox: { parkedCount: () => Promise<number>; oldestPendingAgeSeconds: () => Promise<number> },
): void {
  registerScrapedGauge(
    registry,
    {
      name: 'svc_outbox_parked_messages',
      help: 'Outbox messages parked and waiting for an operator (scripts/outbox-parked.mjs).',
    },
    outbox.parkedCount,
  );
  registerScrapedGauge(
    registry,
    {
      name: 'svc_outbox_oldest_message_age_seconds',
      help: 'Age of the oldest outbox message still to publish (parked ones excluded); 0 when none.',
    },
    outbox.oldestPendingAgeSeconds,
  );
}
