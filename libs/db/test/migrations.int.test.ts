import path from 'node:path';
import type { PgConnectionConfig } from '../src/connection-config.ts';
import { pg } from '../src/prisma-bridge.ts';
import { migrationsUpToDate } from '../src/applied-migrations.ts';
import { migrateDatabase } from '../src/migrate.ts';
import { createTestDatabase } from '@svc/testing';

const SERVICES = [
  'gateway',
  'accounts',
  'publisher',
  'scheduler',
  'webhook-dispatcher',
  'analytics-sync',
  'billing',
  'dashboard',
];
const root = path.resolve(__dirname, '../../..');

async function query<Row extends object>(connection: PgConnectionConfig, sql: string): Promise<Row[]> {
  const client = new pg.Client({ ...connection, password: connection.password ?? '' });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function tables(connection: PgConnectionConfig): Promise<string[]> {
  const rows = await query<{ tablename: string }>(
    connection,
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  return rows.map((row) => row.tablename);
}

describe('migrations through the offline Prisma bridge', () => {
  it.each(SERVICES)('apply to an empty %s database, and a second run is a no-op', async (service) => {
    const database = await createTestDatabase({ prefix: `mig_${service}` });
    try {
      expect(await tables(database.connection)).toEqual([]);
      const serviceDir = path.join(root, 'services', service);
      expect(await migrationsUpToDate(serviceDir, database.connection)).toBe(false);
      const first = await migrateDatabase({ serviceDir, connection: database.connection });
      expect(first).toMatch(/successfully applied/);
      expect(await tables(database.connection)).toEqual(
        expect.arrayContaining(['_prisma_migrations', 'outbox_messages', 'processed_messages']),
      );
      const second = await migrateDatabase({ serviceDir, connection: database.connection });
      expect(second).toMatch(/No pending migrations/);
      expect(await migrationsUpToDate(serviceDir, database.connection)).toBe(true);
    } finally {
      await database.drop();
    }
  });

  it('runs the CLI again when a migration is missing, edited or unfinished in the database', async () => {
    const database = await createTestDatabase({ prefix: 'mig_drift' });
    const serviceDir = path.join(root, 'services', 'scheduler');
    try {
      await migrateDatabase({ serviceDir, connection: database.connection });
      expect(await migrationsUpToDate(serviceDir, database.connection)).toBe(true);
      const [last] = await query<{ migration_name: string; checksum: string }>(
        database.connection,
        'SELECT migration_name, checksum FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1',
      );
      const set = (sql: string) =>
        query(database.connection, `${sql} WHERE migration_name = '${last!.migration_name}'`);
      await set("UPDATE _prisma_migrations SET checksum = 'edited'");
      expect(await migrationsUpToDate(serviceDir, database.connection)).toBe(false);
      await set(`UPDATE _prisma_migrations SET checksum = '${last!.checksum}', finished_at = NULL`);
      expect(await migrationsUpToDate(serviceDir, database.connection)).toBe(false);
      await set('DELETE FROM _prisma_migrations');
      expect(await migrationsUpToDate(serviceDir, database.connection)).toBe(false);
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
