import {
  connectionConfig,
  connectionUrl,
  dropDatabase,
  ensureDatabase,
  migrateDatabase,
  type PgConnectionConfig,
} from '@svc/db';
import { uniqueName } from './unique-name.ts';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const TEST_AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  connection: PgConnectionConfig;
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file, named uniquely so parallel and repeated runs never collide.
 * With `serviceDir`, the service's migrations are applied through the offline Prisma bridge.
 */
export async function createTestDatabase(options: { prefix: string; serviceDir?: string }): Promise<TestDatabase> {
  const connection = connectionConfig(TEST_DATABASE_URL, uniqueName(`t_${options.prefix.replace(/-/g, '_')}`));
  try {
    await ensureDatabase(connection);
  } catch (error) {
    throw new Error(
      `Integration tests need PostgreSQL at ${TEST_DATABASE_URL}: start it (pg_ctlcluster 15 main start) or set DATABASE_URL. ${(error as Error).message}`,
    );
  }
  if (options.serviceDir !== undefined) {
    try {
      await migrateDatabase({ serviceDir: options.serviceDir, connection });
    } catch (error) {
      // The caller never gets a handle to drop it: a failed migration must not leave the database behind.
      await dropDatabase(connection).catch(() => undefined);
      throw error;
    }
  }
  return { connection, url: connectionUrl(connection), drop: () => dropDatabase(connection) };
}
