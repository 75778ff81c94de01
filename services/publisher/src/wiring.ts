import { BatchQueue, type RawSql } from '@svc/db';
import {
  assertFfprobeInstalled,
  decoderFromConfig,
  ingestSlots,
  storageFromConfig,
  type MediaStorage,
} from '@svc/media';
import { providersFromConfig, tiktokVerifiedPrefixes, type Providers } from '@svc/providers';
import type { ServiceRuntime, WorkerWiring } from '@svc/runtime';
import type { Config } from './config.ts';
import {
  deliveryCommandHandlers,
  deliveryCommands,
  dispatchCommandHandlers,
  dispatchCommands,
} from './consumers/publisher.consumers.ts';
import { accountMessages, accountStateHandlers } from './consumers/account-state.consumer.ts';
import { planChangedHandlers, planMessages } from './consumers/plan-changed.consumer.ts';
import { ACCEPT_SESSION_SETTINGS, AcceptRepository, type NewJobRow } from './data/accept.repository.ts';
import { AccountReplicasRepository } from './data/account-replicas.repository.ts';
import { DELIVERY_SESSION_SETTINGS } from './data/delivery-to-run.ts';
import { wakeWaitingEverywhere } from './data/org-waiting.ts';
import { DraftsRepository } from './data/drafts.repository.ts';
import { JobsRepository } from './data/jobs.repository.ts';
import { MediaRepository } from './data/media.repository.ts';
import { PlanLimitsRepository } from './data/plan-limits.repository.ts';
import { accountsClient, replicatedAccountsClient, type AccountsClient } from './domain/accounts-client.ts';
import { CredentialsCache } from './domain/credentials-cache.ts';
import { deliveryDeferredMetric, deliveryMetrics } from './domain/delivery-metrics.ts';
import { sendWokenDeliveries } from './domain/delivery-run-commands.ts';
import type { DispatchDeps } from './domain/dispatch-job.ts';
import { dispatchOverdueScheduled } from './domain/dispatch-overdue.ts';
import { InFlightSweeper } from './domain/in-flight-sweeper.ts';
import { MediaOrphanSweep } from './domain/media-orphan-sweep.ts';
import { OrgWakes } from './domain/org-wakes.ts';
import { requeueStalePending } from './domain/requeue-deliveries.ts';
import { DeliveryRunner } from './domain/run-delivery.ts';
import type { PrismaClient } from './generated/prisma/client.ts';
import { mediaRpc, mediaRpcHandlers } from './rpc/media.handlers.ts';
import { queueRpc, queueRpcHandlers } from './rpc/queue.handlers.ts';
import { recurrenceRpc, recurrenceRpcHandlers } from './rpc/recurrence.handlers.ts';
import { RecurrenceLoop } from './domain/recurrence-occurrences.ts';
import type { CreateJobDeps } from './domain/create-job.ts';
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

/** Builds the publisher from its runtime, in the roles PUBLISHER_ROLES names: accepting (RPC for the gateway), delivering, or both. */
export async function wire(
  runtime: ServiceRuntime<PrismaClient>,
  config: Config,
  options: PublisherWireOptions = {},
): Promise<WorkerWiring> {
  // Imported media (a post's media_urls) are measured here, videos by ffprobe.
  await assertFfprobeInstalled();
  const roles = new Set(config.PUBLISHER_ROLES.split(','));
  const { db, relay } = runtime;
  const accounts = options.accounts ?? accountsClient(runtime.broker);
  const media = new MediaRepository(db);
  const storage = options.storage ?? storageFromConfig(config);
  const wake = () => relay.wake();
  const deferred = deliveryDeferredMetric(runtime.metrics.registry);
  // Credentials reused briefly per account by deliveries, dropped by the same events that feed the replica.
  const credentials = new CredentialsCache({
    ttlMs: config.DELIVERY_CREDENTIALS_CACHE_MS,
    maxEntries: CREDENTIALS_CACHE_ENTRIES,
  });
  // Due scheduled jobs queue their deliveries as accepted jobs do (DELIVERY_RUN_BATCHES).
  const dispatch = { db, wake, deliveryRunBatches: config.DELIVERY_RUN_BATCHES };

  const delivering = roles.has('deliver')
    ? await startDelivering(
        runtime,
        config,
        { accounts: credentials.wrap(accounts), media, storage, wake, deferred, dispatch },
        options,
      )
    : undefined;
  const accepting = roles.has('accept')
    ? await startAccepting(runtime, config, {
        accounts,
        media,
        storage,
        wake,
        deferred,
        dispatch,
        wakeWaiting: delivering?.wakeWaiting,
      })
    : undefined;
  // Every process consumes account changes: each event reaches one process of the service, which
  // updates the shared replica and forgets the account's token (its own cache; the others' run out).
  const replica = accepting?.replica ?? new AccountReplicasRepository(delivering!.sql);
  await runtime.broker.consume({
    queue: 'publisher.accounts',
    messages: accountMessages,
    handlers: accountStateHandlers(replica, credentials),
    prefetch: 20,
  });
  return {
    // The RPC queue is served by the processes that accept: one that only delivers would take a share of the gateway's requests and refuse them.
    answersRpc: accepting !== undefined,
    // Accepts in flight finish (consumers and the RPC server stop first), then the wake rounds they
    // asked for, before their pool closes.
    // stopConsuming is idempotent: the runtime's own stop finds nothing left to stop.
    stop: async () => {
      await Promise.all([delivering?.sweeper.stop(), accepting?.orphans.stop(), accepting?.recurrences.stop()]);
      await runtime.broker.stopConsuming({ deadlineMs: Math.max(1000, config.SHUTDOWN_GRACE_MS - 5000) });
      await Promise.all([delivering?.runner.drain(), accepting?.handOffs?.stop()]);
      await Promise.all([accepting?.sql.end(), delivering?.sql.end()]);
    },
  };
}

interface RoleDeps {
  accounts: AccountsClient;
  media: MediaRepository;
  storage: MediaStorage;
  wake: () => void;
  deferred: (provider: string) => void;
  dispatch: DispatchDeps;
}

/** Runs deliveries: their commands (publisher.work), the deliveries this process wakes, and the sweeper. */
async function startDelivering(
  runtime: ServiceRuntime<PrismaClient>,
  config: Config,
  deps: RoleDeps,
  options: PublisherWireOptions,
) {
  const { db, logger } = runtime;
  const providers =
    options.providers ??
    providersFromConfig(config, {
      logger,
      allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
      mediaPublicBaseUrl: config.MEDIA_PUBLIC_BASE_URL,
    });
  // Every statement of a delivery is raw SQL: on plain pg it costs a fraction of Prisma's raw path.
  const sql = runtime.openPool('delivery', config.DELIVERY_DB_POOL_SIZE, DELIVERY_SESSION_SETTINGS);
  const runner = new DeliveryRunner({
    db: sql,
    accounts: deps.accounts,
    providers,
    logger,
    maxAttempts: config.DELIVERY_MAX_ATTEMPTS,
    maxQuotaDeferrals: config.DELIVERY_MAX_QUOTA_DEFERRALS,
    backoffMs: config.DELIVERY_BACKOFF_MS.split(',').map(Number),
    leaseMs: config.DELIVERY_LEASE_MS,
    reconcileDelaysMs: config.DELIVERY_RECONCILE_DELAYS_MS.split(',').map(Number),
    media: { repository: deps.media, storage: deps.storage, publicBaseUrl: config.MEDIA_PUBLIC_BASE_URL },
    orgConcurrency: config.DELIVERY_ORG_CONCURRENCY,
    wake: deps.wake,
    onOutcome: deliveryMetrics(runtime.metrics.registry),
    onDeferred: deps.deferred,
    ...(options.afterNetworkCall === undefined ? {} : { afterNetworkCall: options.afterNetworkCall }),
  });
  await runtime.broker.consume({
    queue: 'publisher.work',
    messages: deliveryCommands,
    handlers: deliveryCommandHandlers({ runner, concurrency: config.DELIVERY_CONCURRENCY }),
    prefetch: config.DELIVERY_CONCURRENCY,
  });
  const sweeper = new InFlightSweeper({
    db,
    logger,
    intervalMs: config.DELIVERY_SWEEP_INTERVAL_MS,
    resolve: (id) => runner.run(id),
    requeueStale: () => requeueStalePending(db, config.DELIVERY_STALE_PENDING_MS, deps.wake),
    dispatchOverdue: () => dispatchOverdueScheduled(deps.dispatch, config.SCHEDULE_OVERDUE_DISPATCH_MS),
    wakeWaiting: async () => {
      const woken = await wakeWaitingEverywhere(sql, config.DELIVERY_ORG_CONCURRENCY, config.DELIVERY_LEASE_MS);
      runner.runWoken(woken);
      return woken.length;
    },
  });
  sweeper.start();
  return { sql, runner, sweeper, wakeWaiting: (orgId: string) => runner.wakeWaiting(orgId) };
}

/** Accepts: the gateway's RPC (creates, history, cancel, media), plan changes and due jobs. */
async function startAccepting(
  runtime: ServiceRuntime<PrismaClient>,
  config: Config,
  deps: RoleDeps & { wakeWaiting: ((orgId: string) => void) | undefined },
) {
  const { db } = runtime;
  const jobs = new JobsRepository(db);
  const limits = new PlanLimitsRepository(db, config.PLAN_FREE_POSTS_PER_MONTH);
  const resolveDeps = {
    media: deps.media,
    ingest: {
      storage: deps.storage,
      tmpDir: config.MEDIA_TMP_DIR,
      limits: {
        maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES,
        maxGifBytes: config.MEDIA_MAX_GIF_BYTES,
        maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES,
        maxDocumentBytes: config.MEDIA_MAX_DOCUMENT_BYTES,
        maxDocumentPages: config.MEDIA_MAX_DOCUMENT_PAGES,
      },
      decoder: decoderFromConfig(config),
    },
    // An accept-time import runs inside the gateway's RPC call: its deadline stays below that call's timeout.
    fetch: { policy: { allowPrivate: config.ALLOW_PRIVATE_URLS }, deadlineMs: config.MEDIA_ACCEPT_IMPORT_DEADLINE_MS },
    quotaBytes: config.MEDIA_ORG_QUOTA_BYTES,
    reservationTtlMs: config.MEDIA_QUOTA_RESERVATION_TTL_MS,
    slots: ingestSlots(config.MEDIA_INGEST_CONCURRENCY, config.MEDIA_INGEST_ORG_CONCURRENCY),
    perJob: config.MEDIA_ACCEPT_IMPORT_CONCURRENCY,
  };
  const sql = runtime.openPool('accept', config.ACCEPT_DB_POOL_SIZE, ACCEPT_SESSION_SETTINGS);
  const acceptRepository = new AcceptRepository(sql, config.PLAN_FREE_POSTS_PER_MONTH);
  // One accept statement at a time: the batches of one organization would queue on its usage row anyway.
  const accept = new BatchQueue((batch: NewJobRow[]) => acceptRepository.store(batch), {
    maxSize: config.ACCEPT_BATCH_SIZE,
    maxInFlight: 1,
    splitOnFailure: true,
  });
  // Accept reads the replica (RPC only for accounts it does not know yet).
  const replica = new AccountReplicasRepository(sql);
  const acceptAccounts = replicatedAccountsClient(replica, deps.accounts);
  // A job accepted into its organization's line asks for a wake: run here when this process also
  // delivers, handed to a process that does when it only accepts.
  const handOffs = deps.wakeWaiting === undefined ? wakesByCommand(runtime, config, sql) : undefined;
  const wakeWaiting = deps.wakeWaiting ?? ((orgId: string) => void handOffs?.ask(orgId));
  const create: CreateJobDeps = {
    db,
    accounts: acceptAccounts,
    accept,
    allowPrivateUrls: config.ALLOW_PRIVATE_URLS,
    minLeadSeconds: config.SCHEDULE_MIN_LEAD_SECONDS,
    wake: deps.wake,
    media: resolveDeps,
    mediaPublicBaseUrl: config.MEDIA_PUBLIC_BASE_URL,
    tiktokVerifiedPrefixes: tiktokVerifiedPrefixes(config, config.MEDIA_PUBLIC_BASE_URL),
    deliveryRunBatches: config.DELIVERY_RUN_BATCHES,
    transactionTimeoutMs: config.RPC_TIMEOUT_MS,
    wakeWaiting,
    onDeferred: deps.deferred,
  };
  const cancelDeps = { db, jobs, limits, wake: deps.wake, transactionTimeoutMs: config.RPC_TIMEOUT_MS };
  await runtime.broker.serveRpc({
    messages: [...publisherRpc, ...mediaRpc, ...queueRpc, ...recurrenceRpc],
    handlers: {
      ...publisherRpcHandlers({
        db,
        jobs,
        limits,
        drafts: new DraftsRepository(db),
        wake: deps.wake,
        transactionTimeoutMs: config.RPC_TIMEOUT_MS,
        verifyHeadBytes: config.MEDIA_VERIFY_HEAD_BYTES,
        // A bulk is its own statement, outside the batcher: all of its jobs or none against the quota.
        storeWhole: (bulk) => acceptRepository.store(bulk, { whole: true }),
        create,
      }),
      ...queueRpcHandlers({ db, minLeadSeconds: config.SCHEDULE_MIN_LEAD_SECONDS }),
      ...recurrenceRpcHandlers(cancelDeps),
      ...mediaRpcHandlers({
        db,
        media: deps.media,
        storage: deps.storage,
        publicBaseUrl: config.MEDIA_PUBLIC_BASE_URL,
        quotaBytes: config.MEDIA_ORG_QUOTA_BYTES,
        reservationTtlMs: config.MEDIA_QUOTA_RESERVATION_TTL_MS,
      }),
    },
  });
  // Its own queue, so a plan change is never stuck behind slow deliveries.
  await runtime.broker.consume({
    queue: 'publisher.plans',
    messages: planMessages,
    handlers: planChangedHandlers(limits),
    prefetch: 10,
  });
  // Due scheduled jobs have their own queue: a burst of slow deliveries never holds up their fan-out.
  await runtime.broker.consume({
    queue: 'publisher.dispatch',
    messages: dispatchCommands,
    handlers: dispatchCommandHandlers(deps.dispatch),
    prefetch: 10,
  });
  const orphans = new MediaOrphanSweep({
    storage: deps.storage,
    media: deps.media,
    logger: runtime.logger,
    graceMs: config.MEDIA_ORPHAN_GRACE_MS,
    intervalMs: config.MEDIA_ORPHAN_SWEEP_INTERVAL_MS,
  });
  orphans.start();
  const recurrences = new RecurrenceLoop(
    { create, cancel: cancelDeps, horizonHours: config.RECURRENCE_HORIZON_HOURS },
    runtime.logger,
    config.RECURRENCE_EXTEND_INTERVAL_MS,
  );
  recurrences.start();
  return { sql, replica, handOffs, orphans, recurrences };
}

/** Wakes of a process that only accepts: it cannot run the deliveries it wakes, so it sends them their commands. */
function wakesByCommand(runtime: ServiceRuntime<PrismaClient>, config: Config, sql: RawSql): OrgWakes {
  return new OrgWakes({
    db: sql,
    logger: runtime.logger,
    limit: config.DELIVERY_ORG_CONCURRENCY,
    forMs: config.DELIVERY_LEASE_MS,
    onWoken: (orgId, woken) => sendWokenDeliveries(runtime.broker, orgId, woken, config.DELIVERY_RUN_BATCHES),
  });
}
