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

/** Rows parked in the service's outbox right now, read at scrape time; alert when above zero. */
export function registerOutboxGauge(registry: Registry, parkedCount: () => Promise<number>): void {
  registerScrapedGauge(
    registry,
    {
      name: 'svc_outbox_parked_messages',
      help: 'Outbox messages parked and waiting for an operator (scripts/outbox-parked.mjs).',
    },
    parkedCount,
  );
}
