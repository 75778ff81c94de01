import path from 'node:path';
import type { PgConnectionConfig } from '../src/connection-config.ts';
import { pg } from '../src/prisma-bridge.ts';
import { migrateDatabase } from '../src/migrate.ts';
import { createTestDatabase } from '@svc/testing';

const SERVICES = ['gateway', 'accounts', 'publisher', 'scheduler', 'webhook-dispatcher', 'analytics-sync', 'billing'];
const root = path.resolve(__dirname, '../../..');

async function tables(connection: PgConnectionConfig): Promise<string[]> {
  const client = new pg.Client({ ...connection, password: connection.password ?? '' });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
    );
    return rows.map((row) => row.tablename);
  } finally {
    await client.end();
  }
}

describe('migrations through the offline Prisma bridge', () => {
  it.each(SERVICES)('apply to an empty %s database, and a second run is a no-op', async (service) => {
    const database = await createTestDatabase({ prefix: `mig_${service}` });
    try {
      expect(await tables(database.connection)).toEqual([]);
      const serviceDir = path.join(root, 'services', service);
      const first = await migrateDatabase({ serviceDir, connection: database.connection });
      expect(first).toMatch(/successfully applied/);
      expect(await tables(database.connection)).toEqual(
        expect.arrayContaining(['_prisma_migrations', 'outbox_messages', 'processed_messages']),
      );
      const second = await migrateDatabase({ serviceDir, connection: database.connection });
      expect(second).toMatch(/No pending migrations/);
    } finally {
      await database.drop();
    }
  });

  it('reports a readable error when the database cannot be migrated', async () => {
    const connection = {
      host: '127.0.0.1',
      port: 5432,
      user: 'postgres',
      password: undefined,
      database: 'no_such_database_for_sure',
    };
    await expect(migrateDatabase({ serviceDir: path.join(root, 'services', 'accounts'), connection })).rejects.toThrow(
      /prisma migrate deploy failed for no_such_database_for_sure/,
    );
  });
});
