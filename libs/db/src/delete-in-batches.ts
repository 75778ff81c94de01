import type { RawSql } from './raw-sql.ts';

export interface DeleteInBatchesOptions {
  /** The table to delete from (a constant of the caller, never user input). */
  table: string;
  /** The condition of the rows to delete, with `$1`..`$n` for `params`; the batch size is appended as the next one. */
  where: string;
  params: unknown[];
  /** Rows per DELETE: short statements and short locks, however large the backlog. */
  batchSize: number;
  /** Checked between batches: shutdown waits for the current batch only; the next pass finishes the rest. */
  shouldStop?: () => boolean;
}

/**
 * Deletes every row matching `where`, batch after batch until fewer than a batch are left, so a
 * retention pass keeps up with any rate of new rows. SKIP LOCKED lets replicas prune side by side
 * and never waits on a row that live work holds. Returns how many rows were deleted.
 */
export async function deleteInBatches(db: RawSql, options: DeleteInBatchesOptions): Promise<number> {
  const { table, where, params, batchSize } = options;
  const statement = `DELETE FROM ${table} WHERE ctid IN (
       SELECT ctid FROM ${table} WHERE ${where} LIMIT $${params.length + 1} FOR UPDATE SKIP LOCKED)`;
  let total = 0;
  for (;;) {
    const deleted = await db.$executeRawUnsafe(statement, ...params, batchSize);
    total += deleted;
    if (deleted < batchSize || options.shouldStop?.() === true) return total;
  }
}
