import type { RawSql, TransactionalClient } from '@svc/db';

/** A queue as stored: its zone and weekly times. */
export interface QueueRow {
  timezone: string;
  slots: { day: string; time: string }[];
  updated_at: Date;
}

/**
 * A claim holds its time while its job is stored and not canceled; before the job is there, for 10
 * minutes after the claim: the job is stored right after the claim commits, so a claim older than
 * that with no job belongs to a create that failed or died in between (docs/api-queue.md, "Slots").
 */
const HELD = `COALESCE((SELECT j.status <> 'canceled' FROM jobs j WHERE j.id = s.job_id),
  s.claimed_at > now() - interval '10 minutes')`;

export function saveQueue(
  db: Pick<RawSql, '$queryRawUnsafe'>,
  orgId: string,
  timezone: string,
  slots: { day: string; time: string }[],
): Promise<QueueRow[]> {
  return db.$queryRawUnsafe<QueueRow[]>(
    `INSERT INTO queues (org_id, timezone, slots) VALUES ($1, $2, $3::jsonb)
     ON CONFLICT (org_id) DO UPDATE SET timezone = EXCLUDED.timezone, slots = EXCLUDED.slots, updated_at = now()
     RETURNING timezone, slots, updated_at`,
    orgId,
    timezone,
    JSON.stringify(slots),
  );
}

export async function findQueue(db: Pick<RawSql, '$queryRawUnsafe'>, orgId: string): Promise<QueueRow | null> {
  const [row] = await db.$queryRawUnsafe<QueueRow[]>(
    'SELECT timezone, slots, updated_at FROM queues WHERE org_id = $1',
    orgId,
  );
  return row ?? null;
}

/** The queue, its row locked until the transaction ends: the organization's claims take turns on it. */
export async function lockQueue(tx: Pick<RawSql, '$queryRawUnsafe'>, orgId: string): Promise<QueueRow | null> {
  const [row] = await tx.$queryRawUnsafe<QueueRow[]>(
    'SELECT timezone, slots, updated_at FROM queues WHERE org_id = $1 FOR UPDATE',
    orgId,
  );
  return row ?? null;
}

/**
 * The times held in [from, until] by the organization's posts: of the given accounts, or of any
 * account when `accountIds` is null. Each time once, ascending.
 */
export async function heldTimes(
  db: Pick<RawSql, '$queryRawUnsafe'>,
  orgId: string,
  accountIds: readonly string[] | null,
  from: Date,
  until: Date,
): Promise<number[]> {
  const rows = await db.$queryRawUnsafe<{ slot_at: Date }[]>(
    `SELECT DISTINCT s.slot_at FROM queue_slots s
      WHERE s.org_id = $1 AND ($2::text[] IS NULL OR s.account_id = ANY($2::text[]))
        AND s.slot_at >= $3 AND s.slot_at <= $4 AND ${HELD}
      ORDER BY s.slot_at`,
    orgId,
    accountIds,
    from,
    until,
  );
  return rows.map((row) => row.slot_at.getTime());
}

/**
 * Takes `slotAt` for every account for the job. A row left by an expired claim or a canceled job is
 * taken over; one still held is not, and the count then falls short of the accounts' (the caller's
 * lock makes that a bug, never a race). The primary key (account_id, slot_at) keeps it so even
 * without the lock.
 */
export function claimTimes(
  tx: Pick<RawSql, '$executeRawUnsafe'>,
  orgId: string,
  accountIds: readonly string[],
  slotAt: Date,
  jobId: string,
): Promise<number> {
  return tx.$executeRawUnsafe(
    `INSERT INTO queue_slots AS s (account_id, slot_at, org_id, job_id, claimed_at)
     SELECT account_id, $2, $3, $4::uuid, now() FROM unnest($1::text[]) AS a(account_id)
     ON CONFLICT (account_id, slot_at) DO UPDATE
       SET org_id = EXCLUDED.org_id, job_id = EXCLUDED.job_id, claimed_at = now()
       WHERE NOT ${HELD}`,
    accountIds,
    slotAt,
    orgId,
    jobId,
  );
}

/** Gives back the times a job claimed at `slotAt` (its create failed after the claim). */
export function releaseTimes(db: Pick<RawSql, '$executeRawUnsafe'>, jobId: string, slotAt: Date): Promise<number> {
  return db.$executeRawUnsafe('DELETE FROM queue_slots WHERE job_id = $1::uuid AND slot_at = $2', jobId, slotAt);
}

export type QueueTransaction = Pick<TransactionalClient, '$transaction'>;
