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

/** Forgets processed ids older than the longest possible redelivery window. */
export async function pruneInbox(db: RawSql, olderThanDays: number): Promise<number> {
  return db.$executeRawUnsafe(
    "DELETE FROM processed_messages WHERE processed_at < now() - make_interval(days => $1::int)",
    olderThanDays,
  );
}
