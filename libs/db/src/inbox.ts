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
 * Forgets processed ids older than `retentionHours`, in batches (every service's runtime runs it
 * periodically). The retention must outlast any redelivery of a message: a redelivered id no longer
 * remembered would run its work again.
 */
export async function pruneInbox(db: RawSql, options: { retentionHours: number; batchSize: number; shouldStop?: () => boolean }): Promise<number> {
  return deleteInBatches(db, {
    table: 'processed_messages',
    where: 'processed_at < now() - make_interval(hours => $1::int)',
    params: [options.retentionHours],
    batchSize: options.batchSize,
    shouldStop: options.shouldStop,
  });
}
