import { BatchQueue } from '@svc/db';
import { storageFromConfig, type MediaStorage } from '@svc/media';
import { providersFromConfig, type Providers } from '@svc/providers';
import type { ServiceRuntime, WorkerWiring } from '@svc/runtime';
import type { Config } from './config.ts';
import { deliveryCommandHandlers, deliveryCommands, dispatchCommandHandlers, dispatchCommands } from './consumers/publisher.consumers.ts';
import { accountMessages, accountStateHandlers } from './consumers/account-state.consumer.ts';
import { planChangedHandlers, planMessages } from './consumers/plan-changed.consumer.ts';
import { ACCEPT_SESSION_SETTINGS, AcceptRepository, type NewJobRow } from './data/accept.repository.ts';
import { AccountReplicasRepository } from './data/account-replicas.repository.ts';
import { DELIVERY_SESSION_SETTINGS } from './data/delivery-to-run.ts';
import { JobsRepository } from './data/jobs.repository.ts';
import { MediaRepository } from './data/media.repository.ts';
import { PlanLimitsRepository } from './data/plan-limits.repository.ts';
import { accountsClient, replicatedAccountsClient, type AccountsClient } from './domain/accounts-client.ts';
import { CredentialsCache } from './domain/credentials-cache.ts';
import { deliveryDeferredMetric, deliveryMetrics } from './domain/delivery-metrics.ts';
import { dispatchOverdueScheduled } from './domain/dispatch-overdue.ts';
import { InFlightSweeper } from './domain/in-flight-sweeper.ts';
import { requeueStalePending } from './domain/requeue-deliveries.ts';
import { DeliveryRunner } from './domain/run-delivery.ts';
import { wakeWaitingEverywhere } from './data/org-waiting.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { mediaRpc, mediaRpcHandlers } from './rpc/media.handlers.ts';
import { publisherRpc, publisherRpcHandlers } from './rpc/publisher.handlers.ts';

/** Accounts whose token one process keeps at most (a few hundred bytes each). */
const CREDENTIALS_CACHE_ENTRIES = 10_000;

/** Overrides for tests: network adapters, the accounts client, and a hook in the crash window. */
export interface PublisherWireOptions {
  providers?: Providers;
  accounts?: AccountsClient;
  afterNetworkCall?: (deliveryId: string) => Promise<void>;
  storage?: MediaStorage;
}

/** Builds the publisher from its runtime: adapters, repositories, RPC for the gateway, the delivery consumer. */
export async function wire(runtime: ServiceRuntime<PrismaClient>, config: Config, options: PublisherWireOptions = {}): Promise<WorkerWiring> {
  const { db, logger, relay } = runtime;
  const providers = options.providers ?? providersFromConfig(config, { logger, allowPrivateUrls: config.ALLOW_PRIVATE_URLS });
  const accounts = options.accounts ?? accountsClient(runtime.broker);
  const jobs = new JobsRepository(db);
  const limits = new PlanLimitsRepository(db, config.PLAN_FREE_POSTS_PER_MONTH);
  const media = new MediaRepository(db);
  const storage = options.storage ?? storageFromConfig(config);
  const resolveDeps = {
    media,
    ingest: { storage, tmpDir: config.MEDIA_TMP_DIR, limits: { maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES, maxGifBytes: config.MEDIA_MAX_GIF_BYTES, maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES } },
    // An accept-time import runs inside the gateway's RPC call: its deadline stays below that call's timeout.
    fetch: { policy: { allowPrivate: config.ALLOW_PRIVATE_URLS }, deadlineMs: config.MEDIA_ACCEPT_IMPORT_DEADLINE_MS },
    quotaBytes: config.MEDIA_ORG_QUOTA_BYTES,
  };
  const wake = () => relay.wake();
  const acceptSql = runtime.openPool(config.ACCEPT_DB_POOL_SIZE, ACCEPT_SESSION_SETTINGS);
  const acceptRepository = new AcceptRepository(acceptSql, config.PLAN_FREE_POSTS_PER_MONTH);
  // One accept statement at a time: the batches of one organization would queue on its usage row anyway.
  const accept = new BatchQueue((batch: NewJobRow[]) => acceptRepository.store(batch), { maxSize: config.ACCEPT_BATCH_SIZE, maxInFlight: 1, splitOnFailure: true });
  const replica = new AccountReplicasRepository(acceptSql);
  // Accept reads the replica (RPC only for accounts it does not know yet); delivery asks accounts
  // for credentials, reused briefly per account and dropped by the same events that feed the replica.
  const acceptAccounts = replicatedAccountsClient(replica, accounts);
  const credentials = new CredentialsCache({ ttlMs: config.DELIVERY_CREDENTIALS_CACHE_MS, maxEntries: CREDENTIALS_CACHE_ENTRIES });
  // Every statement of a delivery is raw SQL: on plain pg it costs a fraction of Prisma's raw path.
  const deliverySql = runtime.openPool(config.DELIVERY_DB_POOL_SIZE, DELIVERY_SESSION_SETTINGS);
  const deferred = deliveryDeferredMetric(runtime.metrics.registry);
  const runner = new DeliveryRunner({
    db: deliverySql,
    accounts: credentials.wrap(accounts),
    providers,
    logger,
    maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
    maxQuotaDeferrals: config.DELIVERY_MAX_QUOTA_DEFERRALS,
    backoffMs: config.DELIVERY_BACKOFF_MS.split(',').map(Number),
    leaseMs: config.DELIVERY_LEASE_MS,
    reconcileDelaysMs: config.DELIVERY_RECONCILE_DELAYS_MS.split(',').map(Number),
    media: { repository: media, storage, publicBaseUrl: config.MEDIA_PUBLIC_BASE_URL },
    orgConcurrency: config.DELIVERY_ORG_CONCURRENCY,
    wake,
    onOutcome: deliveryMetrics(runtime.metrics.registry),
    onDeferred: deferred,
    ...(options.afterNetworkCall === undefined ? {} : { afterNetworkCall: options.afterNetworkCall }),
  });
  // Due scheduled jobs queue their deliveries as accepted jobs do (DELIVERY_RUN_BATCHES).
  const dispatch = { db, wake, deliveryRunBatches: config.DELIVERY_RUN_BATCHES };
  await runtime.broker.serveRpc({
    messages: [...publisherRpc, ...mediaRpc],
    handlers: {
      ...publisherRpcHandlers({ db, jobs, limits, wake, transactionTimeoutMs: config.RPC_TIMEOUT_MS, create: { db, accounts: acceptAccounts, accept, allowPrivateUrls: config.ALLOW_PRIVATE_URLS, minLeadSeconds: config.SCHEDULE_MIN_LEAD_SECONDS, wake, media: resolveDeps, mediaPublicBaseUrl: config.MEDIA_PUBLIC_BASE_URL, tiktokVerifiedPrefixes: config.TIKTOK_VERIFIED_URL_PREFIXES.split(',').map((prefix) => prefix.trim()).filter(Boolean), deliveryRunBatches: config.DELIVERY_RUN_BATCHES, wakeWaiting: (orgId) => runner.wakeWaiting(orgId), onDeferred: deferred } }),
      ...mediaRpcHandlers({ media, storage, publicBaseUrl: config.MEDIA_PUBLIC_BASE_URL, quotaBytes: config.MEDIA_ORG_QUOTA_BYTES }),
    },
  });
  // Its own queue, so a plan change is never stuck behind slow deliveries.
  await runtime.broker.consume({ queue: 'publisher.plans', messages: planMessages, handlers: planChangedHandlers(limits), prefetch: 10 });
  await runtime.broker.consume({ queue: 'publisher.accounts', messages: accountMessages, handlers: accountStateHandlers(replica, credentials), prefetch: 20 });
  // Due scheduled jobs have their own queue: a burst of slow deliveries never holds up their fan-out.
  await runtime.broker.consume({ queue: 'publisher.dispatch', messages: dispatchCommands, handlers: dispatchCommandHandlers(dispatch), prefetch: 10 });
  await runtime.broker.consume({ queue: 'publisher.work', messages: deliveryCommands, handlers: deliveryCommandHandlers({ runner, concurrency: config.DELIVERY_CONCURRENCY }), prefetch: config.DELIVERY_CONCURRENCY });
  const sweeper = new InFlightSweeper({
    db,
    logger,
    intervalMs: config.DELIVERY_SWEEP_INTERVAL_MS,
    resolve: (id) => runner.run(id),
    requeueStale: () => requeueStalePending(db, config.DELIVERY_STALE_PENDING_MS, wake),
    dispatchOverdue: () => dispatchOverdueScheduled(dispatch, config.SCHEDULE_OVERDUE_DISPATCH_MS),
    wakeWaiting: async () => {
      const woken = await wakeWaitingEverywhere(deliverySql, config.DELIVERY_ORG_CONCURRENCY, config.DELIVERY_LEASE_MS);
      runner.runWoken(woken);
      return woken.length;
    },
  });
  sweeper.start();
  return {
    // Accepts in flight finish (consumers and the RPC server stop first) before their pool closes.
    // stopConsuming is idempotent: the runtime's own stop finds nothing left to stop.
    stop: async () => {
      await sweeper.stop();
      await runtime.broker.stopConsuming({ deadlineMs: Math.max(1000, config.SHUTDOWN_GRACE_MS - 5000) });
      await runner.drain();
      await Promise.all([acceptSql.end(), deliverySql.end()]);
    },
  };
}
