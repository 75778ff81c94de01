import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  connectionConfig,
  migrationsOnDisk,
  pg,
  pgClientSettings,
  runMigrateDeploy,
  type PgConnectionConfig,
} from '@svc/db';
import { TEST_DATABASE_URL } from './test-urls.ts';

const root = path.resolve(__dirname, '../../..');
/** duplicate_database, or unique_violation when two creations meet in the catalog. */
const DUPLICATE = new Set(['42P04', '23505']);
const templates = new Map<string, Promise<string>>();

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function withAdmin<T>(work: (client: InstanceType<typeof pg.Client>) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgClientSettings(connectionConfig(TEST_DATABASE_URL, 'postgres'), 'test-admin'));
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `Integration tests need PostgreSQL at ${TEST_DATABASE_URL}: start it (pg_ctlcluster 15 main start) or set DATABASE_URL. ${(error as Error).message}`,
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Resolves once no session is connected to `database` (the migrate CLI is killed, not awaited). */
async function whenUnused(client: InstanceType<typeof pg.Client>, database: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const { rowCount } = await client.query('SELECT 1 FROM pg_stat_activity WHERE datname = $1', [database]);
    if (rowCount === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${database} still has sessions 30 s after its migrations`);
}

/**
 * The service's migrated template database, `tmpl_<service>_<hash of its migrations>`, built once
 * (`prisma migrate deploy` into a fresh database, which then refuses connections) and kept between
 * runs: templates named for other migrations, built over a day earlier, are dropped when a new one is
 * built. An advisory lock
 * makes test workers that need the same template build it once.
 */
async function serviceTemplate(service: string): Promise<string> {
  const serviceDir = path.join(root, 'services', service);
  const migrations = await migrationsOnDisk(serviceDir);
  const digest = createHash('sha256')
    .update([...migrations].map(([name, checksum]) => `${name}:${checksum}`).join('\n'))
    .digest('hex')
    .slice(0, 12);
  const prefix = `tmpl_${service.replace(/-/g, '_')}_`;
  const template = `${prefix}${digest}`;
  return withAdmin(async (client) => {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [prefix]);
    try {
      const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (existing.rowCount !== 0) return template;
      const building = `${template}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${quote(building)} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${quote(building)}`);
      await runMigrateDeploy({ serviceDir, connection: connectionConfig(TEST_DATABASE_URL, building) });
      await whenUnused(client, building);
      await client.query(`ALTER DATABASE ${quote(building)} RENAME TO ${quote(template)}`);
      await client.query(`ALTER DATABASE ${quote(template)} WITH ALLOW_CONNECTIONS false`);
      await client.query(`COMMENT ON DATABASE ${quote(template)} IS 'built ${new Date().toISOString()}'`);
      // Another checkout's run (other migrations) may be cloning its own template right now: only
      // templates built over a day ago go (one with no build time is kept).
      const stale = await client.query<{ datname: string }>(
        `SELECT datname FROM pg_database
          WHERE starts_with(datname, $1) AND datname <> $2
            AND coalesce(substring(shobj_description(oid, 'pg_database') FROM '^built (.*)$')::timestamptz, 'infinity')
                < now() - interval '1 day'`,
        [prefix, template],
      );
      for (const { datname } of stale.rows)
        await client.query(`DROP DATABASE IF EXISTS ${quote(datname)}`).catch(() => undefined);
      return template;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [prefix]);
    }
  });
}

/**
 * Creates `database` for `service` as a copy of its migrated template, unless it exists already. The
 * service then finds every migration applied and starts without running Prisma's CLI, which costs
 * seconds of CPU per database: the system suites create hundreds.
 */
export async function ensureServiceDatabase(service: string, database: string): Promise<PgConnectionConfig> {
  let template = templates.get(service);
  if (template === undefined) {
    template = serviceTemplate(service);
    templates.set(service, template);
    template.catch(() => templates.delete(service));
  }
  const source = await template;
  await withAdmin(async (client) => {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (existing.rowCount !== 0) return;
    // Replicas of one service share its database and may race to create it.
    await client.query(`CREATE DATABASE ${quote(database)} TEMPLATE ${quote(source)}`).catch((error: unknown) => {
      if (!DUPLICATE.has((error as { code?: string }).code ?? '')) throw error;
    });
  });
  return connectionConfig(TEST_DATABASE_URL, database);
}
