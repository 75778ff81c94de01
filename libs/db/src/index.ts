export {
  connectionConfig,
  connectionUrl,
  pgClientSettings,
  serviceDatabaseName,
  type PgConnectionConfig,
} from './connection-config.ts';
export { createPrismaAdapter, pg, type BridgeOptions } from './prisma-bridge.ts';
export { ensureDatabase, dropDatabase } from './ensure-database.ts';
export { migrateDatabase, runMigrateDeploy, type MigrateOptions } from './migrate.ts';
export { migrationsOnDisk, migrationsUpToDate } from './applied-migrations.ts';
export { enqueueOutbox } from './outbox.ts';
export {
  OutboxRelay,
  RELAY_SESSION_SETTINGS,
  type OutboxRelayOptions,
  type EnvelopePublisher,
  type ParkReason,
} from './outbox-relay.ts';
export { listParkedOutbox, requeueParkedOutbox, type ParkedOutboxRow } from './outbox-parked.ts';
export { processEachOnce, processOnce, pruneInbox, type InboxOutcome } from './inbox.ts';
export { BatchQueue, type BatchQueueOptions } from './batch-queue.ts';
export { deleteInBatches, type DeleteInBatchesOptions } from './delete-in-batches.ts';
export type { RawSql, TransactionalClient } from './raw-sql.ts';
export { decodeKeysetCursor, encodeKeysetCursor, type KeysetPosition } from './keyset-cursor.ts';
export {
  createPgRawSql,
  openPgDatabase,
  type PgDatabase,
  type PgRawSql,
  type PgRawSqlOptions,
  type PoolStats,
} from './pg-raw-sql.ts';
