import type { Logger } from '@svc/logger';

export type ConsumeOutcome = 'ack' | 'retry' | 'parked';

/** Optional hooks for a metrics library; the broker stays free of any metrics dependency. */
export interface BrokerMetrics {
  onPublish?(type: string): void;
  onConsume?(type: string, outcome: ConsumeOutcome, ms: number): void;
  onReconnect?(): void;
  /**
   * A message's first delivery to a work queue's handler: `ms` since the message was created (its
   * envelope's `occurred_at`), so the time it waited in the outbox and the queue. Retries are not
   * reported: their delay is deliberate.
   */
  onWait?(queue: string, ms: number): void;
}

export interface BrokerOptions {
  url: string;
  /** '' means 'svc'; every exchange and queue name starts with `${prefix}.` so test runs never collide. */
  namespace: string;
  /** Names the RPC queue `${prefix}.${service}.rpc`. */
  service: string;
  logger: Logger;
  /** Per consumer, never global: quorum queues do not support global QoS. */
  prefetch?: number;
  heartbeatSec?: number;
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  /** One delay queue per tier; retry n waits tier[n - 1], the last tier repeating. */
  retryDelaysMs?: number[];
  maxRetries?: number;
  /** Crash-loop guard only (x-delivery-limit): consumer crashes count toward it, business retries do not. */
  deliveryLimit?: number;
  rpcTimeoutMs?: number;
  /** How long a publish waits for a lost connection to come back before it rejects. */
  publishWaitMs?: number;
  /** Unconfirmed publishes allowed in flight; further publishes wait for confirms. */
  maxUnconfirmed?: number;
  metrics?: BrokerMetrics;
  /**
   * Set where every service connects as its own broker user named `${prefix}${service}`: RPC servers
   * then refuse requests to definitions with `callers` from any other user. RabbitMQ validates the
   * `user-id` property against the connection's user, so a service cannot claim to be another.
   */
  callerUserPrefix?: string | undefined;
}

export type ResolvedOptions = Required<Omit<BrokerOptions, 'metrics' | 'reconnect' | 'callerUserPrefix'>> & {
  callerUserPrefix: string | undefined;
  reconnect: { initialDelayMs: number; maxDelayMs: number };
  metrics: BrokerMetrics;
};

export function resolveOptions(options: BrokerOptions): ResolvedOptions {
  const retryDelaysMs = options.retryDelaysMs ?? [1000, 5000, 30000, 300000, 1800000];
  if (retryDelaysMs.length === 0 || retryDelaysMs.some((ms) => !Number.isInteger(ms) || ms <= 0)) {
    throw new Error('retryDelaysMs must be a non-empty list of positive integers.');
  }
  if (!/^[a-z][a-z0-9-]*$/.test(options.service)) throw new Error(`Invalid service name "${options.service}".`);
  return {
    url: options.url,
    namespace: options.namespace,
    service: options.service,
    logger: options.logger,
    prefetch: options.prefetch ?? 20,
    heartbeatSec: options.heartbeatSec ?? 15,
    reconnect: {
      initialDelayMs: options.reconnect?.initialDelayMs ?? 500,
      maxDelayMs: options.reconnect?.maxDelayMs ?? 30000,
    },
    retryDelaysMs: [...new Set(retryDelaysMs)],
    maxRetries: options.maxRetries ?? 5,
    deliveryLimit: options.deliveryLimit ?? 10,
    rpcTimeoutMs: options.rpcTimeoutMs ?? 5000,
    publishWaitMs: options.publishWaitMs ?? 10000,
    maxUnconfirmed: options.maxUnconfirmed ?? 1000,
    metrics: options.metrics ?? {},
    callerUserPrefix: options.callerUserPrefix,
  };
}
