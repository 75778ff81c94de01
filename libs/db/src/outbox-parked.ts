import type { RawSql } from './raw-sql.ts';

export interface ParkedOutboxRow {
  id: string;
  type: string;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  parked_at: Date;
}

/** Parked outbox rows (oldest first), optionally of one message type: what an operator inspects. */
export function listParkedOutbox(
  db: RawSql,
  options: { limit?: number; type?: string } = {},
): Promise<ParkedOutboxRow[]> {
  return db.$queryRawUnsafe<ParkedOutboxRow[]>(
    `SELECT id::text AS id, type, attempts, last_error, created_at, parked_at FROM outbox_messages
      WHERE parked_at IS NOT NULL AND published_at IS NULL AND ($2::text IS NULL OR type = $2)
      ORDER BY parked_at, id LIMIT $1`,
    options.limit ?? 100,
    options.type ?? null,
  );
}

/**
 * Gives parked rows back to the relay with a fresh attempt budget (after the cause is fixed, e.g. a
 * consumer's queue now exists): by ids, or by type, or all, up to `limit`. Returns how many.
 */
export function requeueParkedOutbox(
  db: RawSql,
  options: { ids?: readonly string[]; type?: string; limit?: number } = {},
): Promise<number> {
  return db.$executeRawUnsafe(
    `UPDATE outbox_messages SET parked_at = NULL, attempts = 0, available_at = now(), last_error = NULL
      WHERE id IN (SELECT id FROM outbox_messages
                    WHERE parked_at IS NOT NULL AND published_at IS NULL
                      AND ($1::uuid[] IS NULL OR id = ANY($1::uuid[])) AND ($2::text IS NULL OR type = $2)
                    ORDER BY parked_at, id LIMIT $3)`,
    options.ids === undefined ? null : [...options.ids],
    options.type ?? null,
    options.limit ?? 1000,
  );
}
