import { createHash } from 'node:crypto';
import pg from 'pg';
import { pgClientSettings, type PgConnectionConfig } from './connection-config.ts';
import type { RawSql, TransactionalClient } from './raw-sql.ts';

/**
 * A plain pg pool in the RawSql shape, with interactive transactions, for hot statements: the same
 * raw statement through Prisma's `$queryRawUnsafe` measured 4.5x the cost (webhook delivery claims)
 * and ~10x the latency (a 100-row analytics page); see docs/performance.md. Repositories read the
 * same either way. Unlike Prisma's, a transaction here has no time limit of its own (its options are
 * ignored): it lasts as long as its statements and the locks they wait for.
 */
export interface PgRawSql extends TransactionalClient {
  /** The pool's use right now (the saturation gauges of libs/runtime). */
  stats(): PoolStats;
  end(): Promise<void>;
}

/** A pool's use: `inUse` of `max` connections checked out, `waiting` callers queued for one. */
export interface PoolStats {
  max: number;
  inUse: number;
  idle: number;
  waiting: number;
}

export function poolStats(pool: pg.Pool, max: number): PoolStats {
  return { max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

export interface PgRawSqlOptions {
  max: number;
  onIdleError: (error: Error) => void;
  /** Settings of every connection's session (`-c name=value` at connect), e.g. planner switches for a pool with one job. */
  settings?: Record<string, string>;
  /** What the pool is for, after the service's name in `application_name` (`delivery`: `publisher/delivery`); none for its main pool. */
  purpose?: string;
  /** Seconds a connection serves before it is replaced (when next idle); default `CONNECTION_LIFETIME_S`. */
  maxLifetimeSeconds?: number;
}

/**
 * A connection keeps the generic plans of its prepared statements (below) until it closes or an
 * ANALYZE of their tables invalidates them. A plan made while a table was empty can be ruinous once
 * it fills: on a fresh database, the lease count of every claim walked all of its organization's
 * deliveries, 850 to 1,556 rows per delivery and growing, for as long as no ANALYZE ran (soak,
 * autovacuum off; docs/performance.md, "Prepared statements"). Replacing each connection after a
 * minute bounds how long such a plan lives, at the cost of one connect and a few plannings per
 * connection per minute.
 */
export const CONNECTION_LIFETIME_S = 60;

export function createPgRawSql(connection: PgConnectionConfig, options: PgRawSqlOptions): PgRawSql {
  const settings = Object.entries(options.settings ?? {})
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const pool = new pg.Pool({
    ...pgClientSettings(connection, options.purpose),
    max: options.max,
    maxLifetimeSeconds: options.maxLifetimeSeconds ?? CONNECTION_LIFETIME_S,
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
    stats: () => poolStats(pool, options.max),
    end: () => pool.end(),
  };
}

/**
 * A service's database client as a plain pg pool, for a service that keeps Prisma's client out of its
 * process: Prisma's query compiler (WebAssembly) is loaded by a service's first query, raw ones too,
 * and costs about 20 MB of RSS (docs/performance.md, "Webhooks", and "The gateway's young
 * generation, without Prisma's client"). Prisma still owns the schema and runs the migrations, from a child process
 * (migrate.ts). The runtime's `openClient` takes this.
 */
export type PgDatabase = PgRawSql & { $disconnect(): Promise<void> };

export function openPgDatabase(
  connection: PgConnectionConfig,
  pool: { max: number; onPoolError: (error: Error) => void; onPool?: (stats: () => PoolStats) => void },
): PgDatabase {
  const sql = createPgRawSql(connection, { max: pool.max, onIdleError: pool.onPoolError });
  pool.onPool?.(() => sql.stats());
  return { ...sql, $disconnect: () => sql.end() };
}

/** Statements on the pool (each on any free connection) or on one checked-out connection (a transaction). */
function rawSqlOn(target: pg.Pool | pg.PoolClient): RawSql {
  return {
    $queryRawUnsafe: async <T>(query: string, ...values: unknown[]) =>
      (await target.query(preparedQuery(query, values))).rows as T,
    $executeRawUnsafe: async (query: string, ...values: unknown[]) =>
      (await target.query(preparedQuery(query, values))).rowCount ?? 0,
  };
}

/**
 * Distinct statement texts a process prepares at most. Every connection keeps each statement it
 * prepared until it closes, so texts built with values inside (not as parameters) must not grow
 * that without bound: past this many, a new text runs unnamed, parsed and planned each time.
 */
const PREPARED_TEXTS_MAX = 500;
const preparedNames = new Map<string, string>();

/**
 * A statement with parameters runs as a named prepared statement: each connection parses it once,
 * and after its first five runs PostgreSQL keeps a generic plan unless the custom plans were
 * cheaper. Unnamed, every run was parsed and planned again: 0.2-0.6 ms of PostgreSQL's CPU per
 * statement, more than executing the delivery path's statements (docs/performance.md, "Prepared
 * statements"). A text without parameters keeps the simple protocol, which also runs scripts of
 * several statements (a prepared statement holds one).
 */
function preparedQuery(text: string, values: unknown[]): pg.QueryConfig {
  if (values.length === 0) return { text, values };
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < PREPARED_TEXTS_MAX) {
    name = `raw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
