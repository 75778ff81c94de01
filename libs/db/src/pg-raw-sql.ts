import pg from 'pg';
import type { PgConnectionConfig } from './connection-config.ts';
import type { RawSql, TransactionalClient } from './raw-sql.ts';

/**
 * A plain pg pool in the RawSql shape, with interactive transactions, for hot statements: the same
 * raw statement through Prisma's `$queryRawUnsafe` measured 4.5x the cost (webhook delivery claims)
 * and ~10x the latency (a 100-row analytics page); see docs/performance.md. Repositories read the
 * same either way. Unlike Prisma's, a transaction here has no time limit of its own (its options are
 * ignored): it lasts as long as its statements and the locks they wait for.
 */
export interface PgRawSql extends TransactionalClient {
  end(): Promise<void>;
}

export interface PgRawSqlOptions {
  max: number;
  onIdleError: (error: Error) => void;
  /** Settings of every connection's session (`-c name=value` at connect), e.g. planner switches for a pool with one job. */
  settings?: Record<string, string>;
}

export function createPgRawSql(connection: PgConnectionConfig, options: PgRawSqlOptions): PgRawSql {
  const { host, port, user, password, database } = connection;
  const settings = Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`).join(' ');
  const pool = new pg.Pool({
    host, port, user, database, max: options.max,
    ...(password === undefined ? {} : { password }),
    ...(settings === '' ? {} : { options: settings }),
  });
  pool.on('error', options.onIdleError);
  return {
    ...rawSqlOn(pool),
    $transaction: async (fn) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      // A checked-out client that loses its connection emits 'error'; unheard, it would crash the
      // process. Heard, the statement in progress fails and the client is discarded on release.
      const onError = (error: Error) => {
        broken = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await fn(rawSqlOn(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A connection that cannot even roll back is not given to the next caller.
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback instanceof Error ? rollback : new Error(String(rollback));
        });
        throw error;
      } finally {
        client.off('error', onError);
        client.release(broken);
      }
    },
    end: () => pool.end(),
  };
}

/** Statements on the pool (each on any free connection) or on one checked-out connection (a transaction). */
function rawSqlOn(target: pg.Pool | pg.PoolClient): RawSql {
  return {
    $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) => (await target.query(query, values)).rows as T,
    $executeRawUnsafe: async (query: string, ...values: unknown[]) => (await target.query(query, values)).rowCount ?? 0,
  };
}
