import { deleteInBatches } from './delete-in-batches.ts';
import type { RawSql, TransactionalClient } from './raw-sql.ts';

export type InboxOutcome<R> = { duplicate: true } | { duplicate: false; result: R };

/**
 * Runs `work` at most once per (consumer, message id): the id is recorded in the same transaction as
 * the work's own writes, so a redelivered message (at-least-once delivery) commits nothing twice.
 */
export async function processOnce<R>(
  db: TransactionalClient,
  consumer: string,
  messageId: string,
  work: (tx: RawSql) => Promise<R>,
): Promise<InboxOutcome<R>> {
  return db.$transaction(async (tx) => {
    const inserted = await tx.$executeRawUnsafe(
      'INSERT INTO processed_messages (consumer, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      consumer,
      messageId,
    );
    if (inserted === 0) return { duplicate: true } as const;
    return { duplicate: false, result: await work(tx) } as const;
  });
}

/**
 * `processOnce` for many messages in one transaction (group commit): records every id at once and
 * runs `work` with those not processed before, so the messages of one prefetch window share a
 * commit and a round trip per statement. The ids are inserted in sorted order, so two batches naming
 * the same redelivered ids wait on each other in one order, never in a cycle.
 */
export async function processEachOnce<R>(
  db: TransactionalClient,
  consumer: string,
  messageIds: readonly string[],
  work: (tx: RawSql, fresh: ReadonlySet<string>) => Promise<R>,
): Promise<{ fresh: ReadonlySet<string>; result: R }> {
  return db.$transaction(async (tx) => {
    const inserted = await tx.$queryRawUnsafe<{ message_id: string }[]>(
      `INSERT INTO processed_messages (consumer, message_id)
       SELECT $1, id FROM unnest($2::text[]) AS id ORDER BY id
       ON CONFLICT DO NOTHING RETURNING message_id`,
      consumer,
      [...messageIds].sort(),
    );
    const fresh = new Set(inserted.map((row) => row.message_id));
    return { fresh, result: await work(tx, fresh) };
  });
}

/**
 * Forgets processed ids older than `retentionHours`, in batches (every service's runtime runs it
 * periodically). The retention must outlast any redelivery of a message: a redelivered id no longer
 * remembered would run its work again.
 */
export async function pruneInbox(
  db: RawSql,
  options: { retentionHours: number; batchSize: number; shouldStop?: () => boolean },
): Promise<number> {
  return deleteInBatches(db, {
    table: 'processed_messages',
    where: 'processed_at < now() - make_interval(hours => $1::int)',
    params: [options.retentionHours],
    batchSize: options.batchSize,
    shouldStop: options.shouldStop,
  });
}
