import { analyticsFromConfig, type NetworkAnalytics } from '@svc/providers';
import { registerScrapedGauge, type ServiceRuntime, type WorkerWiring } from '@svc/runtime';
import type { Config } from './config.ts';
import { analyticsEventHandlers, analyticsEvents } from './consumers/analytics.consumers.ts';
import { AnalyticsRepository } from './data/analytics.repository.ts';
import { PublishedRecorder } from './domain/record-published.ts';
import { accountsClient, type AccountsClient } from './domain/accounts-client.ts';
import { BackgroundSync } from './domain/background-sync.ts';
import { systemClock, type Clock } from './domain/cadence.ts';
import { NetworkReadGate } from './domain/network-read-gate.ts';
import { ReadRefresher } from './domain/read-refresher.ts';
import type { RefreshDeps } from './domain/refresh-rows.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { analyticsRpc, analyticsRpcHandlers } from './rpc/analytics.handlers.ts';

/** Overrides for tests: the clock (time is injected, never waited for), network analytics, accounts. */
export interface AnalyticsWireOptions {
  clock?: Clock;
  analytics?: NetworkAnalytics;
  accounts?: AccountsClient;
  /** Receives the background sync so tests can run passes themselves. */
  onSync?: (sync: BackgroundSync) => void;
}

/**
 * The post.published consumer's prefetch (the broker's default), and so the most events one
 * transaction records: a group that holds every unacked event starts at once.
 */
const EVENTS_PREFETCH = 20;

export const BACKGROUND_LAG_GAUGE = {
  name: 'svc_analytics_background_lag_seconds',
  help: 'Seconds since the earliest next read of a reading now due (accounts paused by a rate limit left out); 0 when none is due.',
};

/** Builds analytics-sync from its runtime: the post.published consumer, the list RPC, the background sync. */
export async function wire(
  runtime: ServiceRuntime<PrismaClient>,
  config: Config,
  options: AnalyticsWireOptions = {},
): Promise<WorkerWiring> {
  const { db, logger, broker } = runtime;
  // The plain pg pool: the list's reads, and the post.published consumer's transaction (its
  // statements through Prisma were most of this service's CPU per delivery: docs/performance.md).
  const sql = runtime.openPool('hot', config.ANALYTICS_DB_POOL_SIZE);
  const repo = new AnalyticsRepository(db, sql);
  const deps: RefreshDeps = {
    repo,
    accounts: options.accounts ?? accountsClient(broker),
    analytics: options.analytics ?? analyticsFromConfig(config, { logger }),
    clock: options.clock ?? systemClock,
    logger,
    settings: {
      rateLimitDeferMs: config.ANALYTICS_RATE_LIMIT_DEFER_MS,
      transientRetryMs: config.ANALYTICS_TRANSIENT_RETRY_MS,
    },
    concurrency: config.ANALYTICS_ACCOUNT_CONCURRENCY,
    gate: new NetworkReadGate({
      concurrency: config.ANALYTICS_NETWORK_CONCURRENCY,
      perSecond: config.ANALYTICS_NETWORK_CALLS_PER_SECOND,
    }),
  };
  const sync = new BackgroundSync({
    deps,
    repo,
    logger,
    intervalMs: config.ANALYTICS_SYNC_INTERVAL_MS,
    batchSize: config.ANALYTICS_SYNC_BATCH,
    leaseMs: config.ANALYTICS_SYNC_LEASE_MS,
    maxReadsPerSecond: config.ANALYTICS_SYNC_MAX_READS_PER_SECOND,
    // Leaves room in the shutdown grace for the consumers and the broker after it.
    stopWaitMs: Math.max(1000, Math.floor(config.SHUTDOWN_GRACE_MS / 3)),
  });
  options.onSync?.(sync);
  // How far the background is behind: it grows when the readings due outgrow what the replicas read
  // (ANALYTICS_SYNC_MAX_READS_PER_SECOND, the batch, the networks' limits); add replicas or raise the budget.
  registerScrapedGauge(runtime.metrics.registry, BACKGROUND_LAG_GAUGE, () => repo.backgroundLagSeconds(deps.clock()));
  const refresher = new ReadRefresher(deps, {
    minRefreshAgeMs: config.ANALYTICS_MIN_REFRESH_AGE_MS,
    orgReadsPerMinute: config.ANALYTICS_ORG_READS_PER_MINUTE,
  });
  await broker.serveRpc({
    messages: analyticsRpc,
    handlers: analyticsRpcHandlers({
      repo,
      clock: deps.clock,
      refresher,
      readBudgetMs: config.ANALYTICS_READ_BUDGET_MS,
    }),
  });
  const recorder = new PublishedRecorder({
    db: sql,
    repo,
    wake: (delayMs) => sync.wake(delayMs),
    firstReadDelayMs: config.ANALYTICS_FIRST_READ_DELAY_MS,
    maxEvents: EVENTS_PREFETCH,
    lingerMs: config.ANALYTICS_RECORD_LINGER_MS,
  });
  await broker.consume({
    queue: 'analytics-sync.work',
    messages: analyticsEvents,
    handlers: analyticsEventHandlers(recorder),
    prefetch: EVENTS_PREFETCH,
  });
  if (config.ANALYTICS_BACKGROUND_SYNC) sync.start();
  return {
    // Requests in flight finish (consumers and RPC stop first) before their pool closes.
    stop: async () => {
      await sync.stop();
      await broker.stopConsuming({ deadlineMs: Math.max(1000, config.SHUTDOWN_GRACE_MS - 5000) });
      await sql.end();
    },
  };
}
