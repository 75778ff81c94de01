import path from 'node:path';
import { connectionConfig, connectionUrl, dropDatabase, ensureDatabase, type PgConnectionConfig } from '@svc/db';
import { ensureServiceDatabase } from './service-database.ts';
import { TEST_DATABASE_URL } from './test-urls.ts';
import { uniqueName } from './unique-name.ts';

export { TEST_AMQP_URL, TEST_DATABASE_URL, TEST_REDIS_URL } from './test-urls.ts';

export interface TestDatabase {
  connection: PgConnectionConfig;
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database for one test file, named uniquely so parallel and repeated runs never collide.
 * With `serviceDir` (a folder under services/), a copy of the service's migrated template.
 */
export async function createTestDatabase(options: { prefix: string; serviceDir?: string }): Promise<TestDatabase> {
  const connection = connectionConfig(TEST_DATABASE_URL, uniqueName(`t_${options.prefix.replace(/-/g, '_')}`));
  if (options.serviceDir !== undefined) {
    await ensureServiceDatabase(path.basename(options.serviceDir), connection.database);
    return { connection, url: connectionUrl(connection), drop: () => dropDatabase(connection) };
  }
  try {
    await ensureDatabase(connection);
  } catch (error) {
    throw new Error(
      `Integration tests need PostgreSQL at ${TEST_DATABASE_URL}: start it (pg_ctlcluster 15 main start) or set DATABASE_URL. ${(error as Error).message}`,
    );
  }
  return { connection, url: connectionUrl(connection), drop: () => dropDatabase(connection) };
}
