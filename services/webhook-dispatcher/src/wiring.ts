import { vaultFromConfig } from '@svc/crypto';
import { startPruner, type ServiceRuntime, type WorkerWiring } from '@svc/runtime';
import { Counter } from 'prom-client';
import type { Config } from './config.ts';
import { attemptCommands, attemptHandlers } from './consumers/delivery-attempt.consumer.ts';
import { customerEvents, eventHandlers, EVENTS_QUEUE } from './consumers/events.consumer.ts';
import type { PgDatabase } from '@svc/db';
import { DeliveriesRepository } from './data/deliveries.repository.ts';
import { EndpointsRepository } from './data/endpoints.repository.ts';
import { AttemptCommands, DELIVERIES_QUEUE } from './domain/attempt-commands.ts';
import { DeliveryAttempts } from './domain/attempt-delivery.ts';
import { AttemptRecorder } from './domain/attempt-recorder.ts';
import { DeliverySweeper } from './domain/delivery-sweeper.ts';
import { EndpointGate } from './domain/endpoint-gate.ts';
import { EventFanOut } from './domain/fan-out-event.ts';
import { HttpSender } from './domain/http-sender.ts';
import { OrgGate } from './domain/org-gate.ts';
import { OrgShares } from './domain/org-shares.ts';
import { OrgSharesRepository } from './data/org-shares.repository.ts';
import { parseSchedule } from './domain/retry-schedule.ts';
import { SecretBox } from './domain/secrets.ts';
import {
  TESTS_LANE,
  webhooksRpc,
  webhooksRpcHandlers,
  webhooksTestRpc,
  webhooksTestRpcHandlers,
} from './rpc/webhooks.handlers.ts';

/** Deliveries per DELETE of the retention pass (each takes its attempts along). */
const PRUNE_BATCH = 1000;

/**
 * How long a process's share of an organization's attempts lives unless renewed (every third of it):
 * a dead process's shares are free again this long after it died.
 */
const ORG_SHARE_LEASE_MS = 30_000;

/**
 * Builds the dispatcher from its runtime: endpoints and deliveries, the guarded HTTP client, the
 * events consumer (fan-out), the attempts consumer (delivery, retries), RPC for the gateway and the
 * overdue sweeper.
 */
export async function wire(runtime: ServiceRuntime<PgDatabase>, config: Config): Promise<WorkerWiring> {
  const { db, logger, broker } = runtime;
  const secrets = new SecretBox(vaultFromConfig(config.VAULT_KEYS, config.VAULT_ACTIVE_KEY_ID));
  const hot = runtime.openPool('hot', config.WEBHOOK_DB_POOL_SIZE);
  const endpoints = new EndpointsRepository(db, hot);
  const deliveries = new DeliveriesRepository(db, hot);
  const commands = new AttemptCommands(broker);
  const sender = new HttpSender({
    policy: { allowPrivate: config.ALLOW_PRIVATE_URLS },
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    connectTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
    responseCapBytes: config.WEBHOOK_RESPONSE_CAP_BYTES,
    // Pools are per host:port, and endpoints of many customers can share a host: a per-endpoint cap
    // here would let one hanging endpoint block its neighbours. The gate and the prefetch bound load.
    maxSockets: config.WEBHOOK_CONCURRENCY,
  });
  const outcomes = new Counter({
    name: 'svc_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed).',
    labelNames: ['outcome'],
    registers: [runtime.metrics.registry],
  });
  const autoPaused = new Counter({
    name: 'svc_webhook_endpoints_auto_paused_total',
    help: 'Webhook endpoints paused by the dispatcher (410, or failing with no success for WEBHOOK_AUTO_PAUSE_AFTER_MS).',
    registers: [runtime.metrics.registry],
  });
  const attempts = new DeliveryAttempts({
    deliveries,
    recorder: new AttemptRecorder(deliveries, {
      maxBatch: config.WEBHOOK_BATCH_SIZE,
      onAutoPaused: () => autoPaused.inc(),
    }),
    sender,
    secrets,
    commands,
    logger,
    schedule: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE_MS),
    jitter: config.WEBHOOK_RETRY_JITTER,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    autoPauseAfterMs: config.WEBHOOK_AUTO_PAUSE_AFTER_MS,
    onAttempt: (outcome) => outcomes.inc({ outcome }),
  });
  // The attempts consumer lets as many wait as run; the fan-out its backlog, and more while the
  // endpoint is fast (domain/endpoint-gate.ts).
  const gate = new EndpointGate(config.WEBHOOK_ENDPOINT_CONCURRENCY, config.WEBHOOK_ENDPOINT_CONCURRENCY);
  // Both consumers share one per-organization budget (domain/org-gate.ts), this process's share of the
  // organization's limit across every process (domain/org-shares.ts).
  const shares = new OrgShares(new OrgSharesRepository(hot), {
    limit: config.WEBHOOK_ORG_CONCURRENCY,
    leaseMs: ORG_SHARE_LEASE_MS,
    logger,
  });
  const orgGate = new OrgGate(config.WEBHOOK_ORG_CONCURRENCY, shares);
  shares.start((orgId) => orgGate.held(orgId) > 0);
  await broker.consume({
    queue: DELIVERIES_QUEUE,
    messages: attemptCommands,
    handlers: attemptHandlers({ attempts, commands, gate, orgGate }),
    prefetch: config.WEBHOOK_CONCURRENCY,
  });
  await broker.consume({
    queue: EVENTS_QUEUE,
    messages: customerEvents,
    handlers: eventHandlers(
      new EventFanOut({
        endpoints,
        deliveries,
        commands,
        attempts,
        gate,
        orgGate,
        lane: { backlog: config.WEBHOOK_ENDPOINT_BACKLOG, patienceMs: config.WEBHOOK_ENDPOINT_PATIENCE_MS },
        maxBatch: config.WEBHOOK_BATCH_SIZE,
      }),
    ),
    prefetch: config.WEBHOOK_EVENTS_PREFETCH,
  });
  await broker.serveRpc({
    messages: webhooksRpc,
    handlers: webhooksRpcHandlers({
      endpoints,
      deliveries,
      secrets,
      commands,
      urlRules: { allowPrivate: config.ALLOW_PRIVATE_URLS, requireHttps: config.NODE_ENV === 'production' },
      maxEndpointsPerOrg: config.WEBHOOK_MAX_ENDPOINTS_PER_ORG,
      secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS,
      replayWindowMs: config.WEBHOOK_REPLAY_WINDOW_MS,
      attemptsListed: config.WEBHOOK_ATTEMPTS_LISTED,
    }),
  });
  // Test sends wait on receivers: their own queue and prefetch, so the calls above never queue behind them.
  await broker.serveRpc({
    lane: TESTS_LANE,
    prefetch: config.WEBHOOK_TEST_PREFETCH,
    messages: webhooksTestRpc,
    handlers: webhooksTestRpcHandlers({
      endpoints,
      deliveries,
      attempts,
      gate,
      tests: new OrgGate(config.WEBHOOK_TEST_CONCURRENCY_PER_ORG),
      timeoutMs: config.WEBHOOK_TEST_TIMEOUT_MS,
      patienceMs: config.WEBHOOK_ENDPOINT_PATIENCE_MS,
    }),
  });
  const sweeper = new DeliverySweeper({
    deliveries,
    commands,
    logger,
    intervalMs: config.WEBHOOK_SWEEP_INTERVAL_MS,
    graceMs: config.WEBHOOK_SWEEP_GRACE_MS,
  });
  sweeper.start();
  const pruner = startPruner({
    what: 'settled webhook deliveries',
    intervalMs: config.PRUNE_INTERVAL_MS,
    logger,
    prune: (shouldStop) => deliveries.pruneSettled(config.WEBHOOK_DELIVERY_RETENTION_DAYS, PRUNE_BATCH, shouldStop),
  });
  return {
    // In-flight attempts finish (consumers stop first) before their pool closes. stopConsuming is
    // idempotent: the runtime's own stop finds nothing left to stop. Idle keep-alive sockets to
    // receivers are unref'd by node's agent.
    stop: async () => {
      await Promise.all([sweeper.stop(), pruner.stop()]);
      await broker.stopConsuming({ deadlineMs: Math.max(1000, config.SHUTDOWN_GRACE_MS - 5000) });
      // No attempt runs any more: the shares go back to the other processes now, not at their lease's end.
      await shares
        .stop()
        .catch((error: unknown) =>
          logger.warn({ err: error }, "could not give back the shares of organizations' webhook attempts"),
        );
      await hot.end();
    },
  };
}
