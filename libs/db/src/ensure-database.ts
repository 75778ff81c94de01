import { pg } from './prisma-bridge.ts';
import { pgClientSettings, type PgConnectionConfig } from './connection-config.ts';

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505';

function adminClient(connection: PgConnectionConfig) {
  return new pg.Client(pgClientSettings({ ...connection, database: 'postgres' }, 'admin'));
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the service's database when it does not exist yet. Safe when replicas race to create it. */
export async function ensureDatabase(connection: PgConnectionConfig): Promise<{ created: boolean }> {
  const client = adminClient(connection);
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${connection.host}:${connection.port} (${(error as Error).message}). Start PostgreSQL or set DATABASE_URL.`,
      { cause: error },
    );
  }
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [connection.database]);
    if (existing.rowCount !== 0) return { created: false };
    await client.query(`CREATE DATABASE ${quoteIdent(connection.database)}`);
    return { created: true };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return { created: false };
    throw error;
  } finally {
    await client.end();
  }
}

/** Drops a database, disconnecting its users first. For tests and throwaway databases only. */
export async function dropDatabase(connection: PgConnectionConfig): Promise<void> {
  const client = adminClient(connection);
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(connection.database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
