import pg from 'pg';
import type { PgConnectionConfig } from './connection-config.ts';
import type { RawSql } from './raw-sql.ts';

/**
 * A plain pg pool in the RawSql shape, for hot statements: the same raw statement through Prisma's
 * `$queryRawUnsafe` measured 4.5x the cost (webhook delivery claims) and ~10x the latency (a 100-row
 * analytics page); see docs/performance.md. Repositories read the same either way.
 */
export interface PgRawSql extends RawSql {
  end(): Promise<void>;
}

export function createPgRawSql(connection: PgConnectionConfig, options: { max: number; onIdleError: (error: Error) => void }): PgRawSql {
  const { host, port, user, password, database } = connection;
  const pool = new pg.Pool({ host, port, user, database, max: options.max, ...(password === undefined ? {} : { password }) });
  pool.on('error', options.onIdleError);
  return {
    $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) => (await pool.query(query, values)).rows as T,
    $executeRawUnsafe: async (query: string, ...values: unknown[]) => (await pool.query(query, values)).rowCount ?? 0,
    end: () => pool.end(),
  };
}
