import {
  connectionConfig,
  createPrismaAdapter,
  ensureDatabase,
  migrateDatabase,
  migrationsUpToDate,
  OutboxRelay,
  pruneInbox,
  RELAY_SESSION_SETTINGS,
  serviceDatabaseName,
  createPgRawSql,
  type PgConnectionConfig,
  type PgRawSql,
  type RawSql,
} from '@svc/db';
import { configureHostResolver, parseDnsServers } from '@svc/http';
import type { Logger } from '@svc/logger';
import { Broker } from '@svc/messaging';
import { stopTracing } from '@svc/tracing';
import type { PoolStats } from '@svc/db';
import { messageWaitHistogram, registerPoolGauges, registerQueueGauges } from './infrastructure-metrics.ts';
import { createServiceMetrics, registerOutboxGauges, type ServiceMetrics } from './metrics.ts';
import { startPruner } from './pruner.ts';

type PrismaAdapter = ReturnType<typeof createPrismaAdapter>;

/** Rows per DELETE of the inbox pruner. */
const INBOX_PRUNE_BATCH = 5000;

/** Connections of the outbox relay's own pool: its loop runs one statement at a time; the other serves the parked-rows gauge. */
const RELAY_POOL_SIZE = 2;

/** The settings every service shares (see commonConfigSchema in @svc/config). */
export interface RuntimeConfig {
  AMQP_URL: string;
  AMQP_NAMESPACE: string;
  DATABASE_URL: string;
  DATABASE_NAME?: string | undefined;
  /** Create the database and migrate at start (commonConfigSchema); true when absent. */
  DATABASE_MIGRATE_ON_START?: boolean | undefined;
  SHUTDOWN_GRACE_MS: number;
  RPC_TIMEOUT_MS: number;
  BROKER_USER_PREFIX?: string | undefined;
  /** Database pool size; 10 when absent. */
  DB_POOL_MAX?: number | undefined;
  /** Inbox retention and the period of retention passes (commonConfigSchema); 168 h and 1 h when absent. */
  INBOX_RETENTION_HOURS?: number | undefined;
  PRUNE_INTERVAL_MS?: number | undefined;
  /** How user-supplied hosts resolve (commonConfigSchema); the system's servers and 2 s when absent. */
  DNS_SERVERS?: string | undefined;
  DNS_TIMEOUT_MS?: number | undefined;
}

/** Every service's database client: raw SQL (shared helpers and tests read any service's tables) and closing. */
export interface DatabaseClient extends RawSql {
  $disconnect(): Promise<void>;
}

/** The service's database pool settings, given to `openClient`. */
export interface DatabasePool {
  max: number;
  onPoolError: (error: Error) => void;
  /** Receives the pool's use, read at scrape time (the `main` pool's saturation gauges). */
  onPool: (stats: () => PoolStats) => void;
}

export interface ServiceRuntimeOptions<Db extends DatabaseClient> {
  name: string;
  /** Folder holding the service's prisma.config.ts and migrations. */
  serviceDir: string;
  config: RuntimeConfig;
  logger: Logger;
  /** The service's Prisma client over the runtime's adapter (every service but one). Give this or `openClient`. */
  createClient?: (adapter: PrismaAdapter) => Db;
  /**
   * Instead of `createClient`: a client opened on the connection directly, for a service that keeps
   * Prisma's client out of its process (the webhook-dispatcher: its memory, docs/performance.md).
   * Its schema and migrations stay Prisma's either way (`prisma migrate deploy` in a child process).
   */
  openClient?: (connection: PgConnectionConfig, pool: DatabasePool) => Db;
  prefetch?: number;
}

/** What a service's wiring receives: its database, the broker, the outbox relay and metrics. */
export interface ServiceRuntime<Db extends DatabaseClient> {
  name: string;
  logger: Logger;
  db: Db;
  connection: PgConnectionConfig;
  /**
   * A plain pg pool of `max` connections to the service's own database, for its hot raw statements
   * (docs/performance.md); its idle-connection errors are logged. The caller ends it. `purpose`
   * names its connections after the service's (`delivery`: `publisher/delivery`). `settings`: its
   * sessions' planner settings, for a pool with one job (see PgRawSqlOptions).
   */
  openPool(purpose: string, max: number, settings?: Readonly<Record<string, string>>): PgRawSql;
  broker: Broker;
  relay: OutboxRelay;
  metrics: ServiceMetrics;
  /** Stops the relay and consumers (finishing in-flight work), then closes broker and database. */
  stop(): Promise<void>;
}

function openDatabaseClient<Db extends DatabaseClient>(
  options: ServiceRuntimeOptions<Db>,
  connection: PgConnectionConfig,
  pool: DatabasePool,
): Db {
  if (options.openClient !== undefined && options.createClient !== undefined)
    throw new Error(`${options.name}: give createClient or openClient, not both`);
  if (options.openClient !== undefined) return options.openClient(connection, pool);
  if (options.createClient !== undefined) return options.createClient(createPrismaAdapter(connection, pool));
  throw new Error(`${options.name}: createClient or openClient is required`);
}

/**
 * Opens everything a service stands on, in order: its database (created if missing, migrated), its
 * client (Prisma's through the offline bridge, or the service's own), RabbitMQ, and the outbox relay.
 */
export async function openServiceRuntime<Db extends DatabaseClient>(
  options: ServiceRuntimeOptions<Db>,
): Promise<ServiceRuntime<Db>> {
  const { config, logger, name } = options;
  if (config.DNS_SERVERS !== undefined || config.DNS_TIMEOUT_MS !== undefined) {
    configureHostResolver({
      servers: parseDnsServers(config.DNS_SERVERS ?? ''),
      ...(config.DNS_TIMEOUT_MS === undefined ? {} : { timeoutMs: config.DNS_TIMEOUT_MS }),
    });
  }
  // Every connection the service opens names it (and its pool) to PostgreSQL: pg_stat_activity's application_name.
  const connection = {
    ...connectionConfig(config.DATABASE_URL, config.DATABASE_NAME ?? serviceDatabaseName(name)),
    applicationName: name,
  };
  if (config.DATABASE_MIGRATE_ON_START ?? true) {
    const { created } = await ensureDatabase(connection);
    if (created) logger.info({ database: connection.database }, 'database created');
    await migrateDatabase({ serviceDir: options.serviceDir, connection });
    logger.info({ database: connection.database }, 'migrations applied');
  } else if (!(await migrationsUpToDate(options.serviceDir, connection))) {
    // The migrations job of this release has not run (or failed): this code must not run on an older
    // schema. Exiting makes the pod restart until the job has applied them.
    throw new Error(
      `database ${connection.database} is unreachable or lacks migrations of this release (DATABASE_MIGRATE_ON_START is false: the migrations job applies them)`,
    );
  }

  const metrics = createServiceMetrics(name);
  const pools = new Map<string, () => PoolStats>();
  registerPoolGauges(metrics.registry, pools);
  const pool: DatabasePool = {
    max: config.DB_POOL_MAX ?? 10,
    onPoolError: (err) => logger.warn({ err }, 'idle database connection failed'),
    onPool: (stats) => pools.set('main', stats),
  };
  const db = openDatabaseClient(options, connection, pool);
  const waited = messageWaitHistogram(metrics.registry);
  const broker = await Broker.connect({
    url: config.AMQP_URL,
    namespace: config.AMQP_NAMESPACE,
    service: name,
    logger,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    callerUserPrefix: config.BROKER_USER_PREFIX,
    ...(options.prefetch === undefined ? {} : { prefetch: options.prefetch }),
    metrics: {
      onPublish: (type) => metrics.messagesPublished.inc({ type }),
      onConsume: (type, outcome, ms) => {
        metrics.messagesConsumed.inc({ type, outcome });
        metrics.handlerSeconds.observe({ type }, ms / 1000);
      },
      onReconnect: () => metrics.brokerReconnects.inc(),
      onWait: (queue, ms) => waited.observe({ queue }, ms / 1000),
    },
  });
  registerQueueGauges(metrics.registry, () => broker.queueDepths());
  const openPool = (purpose: string, max: number, settings?: Readonly<Record<string, string>>) => {
    const sql = createPgRawSql(connection, {
      purpose,
      max,
      onIdleError: pool.onPoolError,
      ...(settings === undefined ? {} : { settings: { ...settings } }),
    });
    pools.set(purpose, () => sql.stats());
    return sql;
  };
  // The relay's claim and deletes run for every message the service sends: on plain pg (through
  // Prisma's raw path the relay cost about 45% more CPU per message: bench/outbox-relay), with the
  // planner settings its statements need.
  const relaySql = createPgRawSql(connection, {
    purpose: 'relay',
    max: RELAY_POOL_SIZE,
    onIdleError: pool.onPoolError,
    settings: RELAY_SESSION_SETTINGS,
  });
  const relay = new OutboxRelay({
    db: relaySql,
    publisher: broker,
    logger,
    listenConnection: connection,
    onParked: (type, reason) => metrics.outboxParked.inc({ type, reason }),
  });
  pools.set('relay', () => relaySql.stats());
  registerOutboxGauges(metrics.registry, {
    parkedCount: () => relay.parkedCount(),
    oldestPendingAgeSeconds: () => relay.oldestPendingAgeSeconds(),
  });
  await relay.start();
  // Every service keeps an inbox; without this its ids would pile up with every message consumed.
  const inboxPruner = startPruner({
    what: 'inbox ids',
    intervalMs: config.PRUNE_INTERVAL_MS ?? 3_600_000,
    logger,
    prune: (shouldStop) =>
      pruneInbox(db, { retentionHours: config.INBOX_RETENTION_HOURS ?? 168, batchSize: INBOX_PRUNE_BATCH, shouldStop }),
  });

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      await Promise.all([inboxPruner.stop(), relay.stop()]);
      await broker.stopConsuming({ deadlineMs: Math.max(1000, config.SHUTDOWN_GRACE_MS - 5000) });
      await broker.close();
      await Promise.all([relaySql.end(), db.$disconnect()]);
      // Last: the spans of everything drained above still leave.
      await stopTracing();
    })();
    return stopped;
  };
  return { name, logger, db, connection, openPool, broker, relay, metrics, stop };
}
