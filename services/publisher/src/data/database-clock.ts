import type { RawSql } from '@svc/db';

/** The database's clock (the one the scheduler fires by); undefined when the row did not come back. */
export async function databaseNow(db: Pick<RawSql, '$queryRawUnsafe'>): Promise<Date | undefined> {
  const [row] = await db.$queryRawUnsafe<{ now: Date }[]>('SELECT now() AS now');
  return row?.now;
}
