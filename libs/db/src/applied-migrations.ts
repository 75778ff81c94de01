import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pgClientSettings, type PgConnectionConfig } from './connection-config.ts';
import { pg } from './prisma-bridge.ts';

const UNDEFINED_TABLE = '42P01';

/** A service's migrations on disk: folder name → Prisma's checksum of its `migration.sql` (sha256, hex). */
export async function migrationsOnDisk(serviceDir: string): Promise<Map<string, string>> {
  const folder = path.join(serviceDir, 'prisma', 'migrations');
  const entries = await readdir(folder, { withFileTypes: true });
  const migrations = new Map<string, string>();
  for (const entry of entries.filter((item) => item.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const script = await readFile(path.join(folder, entry.name, 'migration.sql'));
    migrations.set(entry.name, createHash('sha256').update(script).digest('hex'));
  }
  return migrations;
}

/**
 * Whether every migration on disk is recorded in `_prisma_migrations` as finished, with the checksum
 * of the file as it is now. When so, `prisma migrate deploy` would apply nothing, and starting its CLI
 * (seconds of CPU) is skipped: a restart, a replica or a database cloned from a migrated template
 * opens at once. Anything else (no table, a pending, failed, rolled-back or edited migration) answers
 * false, and the CLI decides and reports as it always does.
 */
export async function migrationsUpToDate(serviceDir: string, connection: PgConnectionConfig): Promise<boolean> {
  const onDisk = await migrationsOnDisk(serviceDir);
  const client = new pg.Client(pgClientSettings(connection, 'migrate'));
  try {
    await client.connect();
  } catch {
    // Unreachable or missing: the CLI's own attempt says why, in its words.
    await client.end().catch(() => undefined);
    return false;
  }
  try {
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM _prisma_migrations
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const failed = await client.query(
      'SELECT 1 FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL LIMIT 1',
    );
    if (failed.rowCount !== 0) return false;
    const applied = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    return [...onDisk].every(([name, checksum]) => applied.get(name) === checksum);
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return false;
    throw error;
  } finally {
    await client.end();
  }
}
