export { connectionConfig, connectionUrl, serviceDatabaseName, type PgConnectionConfig } from './connection-config.ts';
export { createPrismaAdapter, type BridgeOptions } from './prisma-bridge.ts';
export { ensureDatabase, dropDatabase } from './ensure-database.ts';
export { migrateDatabase, type MigrateOptions } from './migrate.ts';
export { enqueueOutbox } from './outbox.ts';
export { OutboxRelay, type OutboxRelayOptions, type EnvelopePublisher, type ParkReason } from './outbox-relay.ts';
export { listParkedOutbox, requeueParkedOutbox, type ParkedOutboxRow } from './outbox-parked.ts';
export { processOnce, pruneInbox, type InboxOutcome } from './inbox.ts';
export type { RawSql, TransactionalClient } from './raw-sql.ts';
