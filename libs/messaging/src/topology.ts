import type { Channel } from 'amqplib';
import { RETRY_TIER_HEADER } from './amqp-message.ts';
import type { Names } from './names.ts';

/**
 * Everything this broker declared, so `deleteTopology()` can remove exactly that (tests share one
 * RabbitMQ vhost and isolate runs by namespace).
 */
export interface DeclaredTopology {
  exchanges: Set<string>;
  queues: Set<string>;
}

// At-least-once dead-lettering (3.10+) keeps a dead letter in its source queue until the target
// confirms it, and it requires reject-publish overflow (docs/reliability.md, "Broker facts behind
// these rules").
const QUORUM = {
  'x-queue-type': 'quorum',
  'x-dead-letter-strategy': 'at-least-once',
  'x-overflow': 'reject-publish',
} as const;

/**
 * Exchanges plus one delay queue per retry tier. A tier queue has a fixed TTL (never per-message TTL
 * in a shared queue: it blocks the head of the line, docs/reliability.md, "Broker facts behind these
 * rules") and dead-letters through the default exchange with the routing key the copy was published
 * with, which is the name of the work queue that failed: a retried event goes back to that queue
 * only, not to every subscriber.
 */
export async function declareBaseTopology(
  channel: Channel,
  names: Names,
  retryDelaysMs: readonly number[],
  declared: DeclaredTopology,
): Promise<void> {
  const exchanges: [string, string][] = [
    [names.events, 'topic'],
    [names.commands, 'topic'],
    [names.retry, 'headers'],
    [names.parking, 'direct'],
  ];
  for (const [name, type] of exchanges) {
    await channel.assertExchange(name, type, { durable: true });
    declared.exchanges.add(name);
  }
  for (const tierMs of retryDelaysMs) {
    const queue = names.retryQueue(tierMs);
    await channel.assertQueue(queue, {
      durable: true,
      arguments: { ...QUORUM, 'x-message-ttl': tierMs, 'x-dead-letter-exchange': '' },
    });
    declared.queues.add(queue);
    await channel.bindQueue(queue, names.retry, '', { 'x-match': 'all', [RETRY_TIER_HEADER]: String(tierMs) });
  }
}

export interface WorkQueueSpec {
  queue: string;
  bindings: readonly { exchange: string; routingKey: string }[];
  deliveryLimit: number;
}

/**
 * A durable quorum work queue and its parking queue. Dead letters (delivery-limit overflow from a crash
 * loop) go to parking under the work queue's name, because the original routing key is the message type
 * and would not identify the queue.
 */
export async function declareWorkQueue(
  channel: Channel,
  names: Names,
  spec: WorkQueueSpec,
  declared: DeclaredTopology,
): Promise<string> {
  const work = names.workQueue(spec.queue);
  const parking = names.parkingQueue(spec.queue);
  await channel.assertQueue(parking, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  declared.queues.add(parking);
  await channel.bindQueue(parking, names.parking, work);
  await channel.assertQueue(work, {
    durable: true,
    arguments: {
      ...QUORUM,
      'x-delivery-limit': spec.deliveryLimit,
      'x-dead-letter-exchange': names.parking,
      'x-dead-letter-routing-key': work,
    },
  });
  declared.queues.add(work);
  for (const binding of spec.bindings) await channel.bindQueue(work, binding.exchange, binding.routingKey);
  return work;
}

/**
 * Classic, not quorum: requests are worthless after the caller's timeout, so replication buys nothing,
 * while classic queues drop expired messages (per-message `expiration` = caller timeout) at the head
 * cheaply and have lower latency. Durable so that the queue, and thus routing, survives broker restarts.
 */
export async function declareRpcQueue(
  channel: Channel,
  names: Names,
  service: string,
  declared: DeclaredTopology,
): Promise<string> {
  const queue = names.rpcQueue(service);
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'classic' } });
  declared.queues.add(queue);
  return queue;
}
