import { createPgRawSql, type PgConnectionConfig, type PgRawSql } from '@svc/db';

/**
 * The dispatcher's database client: a plain pg pool, no Prisma client in this process (Prisma's query
 * compiler alone costs ~30 MB of RSS; docs/performance.md, Webhooks > Memory). Prisma still owns the
 * schema and runs the migrations, from a child process (libs/db migrate.ts).
 */
export type DispatcherDb = PgRawSql & { $disconnect(): Promise<void> };

export function openDispatcherDb(connection: PgConnectionConfig, pool: { max: number; onPoolError: (error: Error) => void }): DispatcherDb {
  const sql = createPgRawSql(connection, { max: pool.max, onIdleError: pool.onPoolError });
  return { ...sql, $disconnect: () => sql.end() };
}
