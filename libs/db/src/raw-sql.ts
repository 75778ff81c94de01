/**
 * The slice of a Prisma client (or interactive transaction) that libs/db needs. Every service has its
 * own generated client type; they all match this shape, so the outbox and inbox work with any of them.
 */
export interface RawSql {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface TransactionalClient extends RawSql {
  $transaction<R>(fn: (tx: RawSql) => Promise<R>, options?: { maxWait?: number; timeout?: number }): Promise<R>;
}
