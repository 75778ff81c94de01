import type { RawSql } from '@svc/db';

/**
 * `scheduled -> queued` for every job of `ids` still scheduled (`moved`), and the jobs of `ids` that
 * had already left `scheduled` other than by a cancel (`moved` false).
 * Rows locked in id order, so two batches sharing jobs (a redelivery next to a re-send) wait for
 * each other instead of deadlocking. FOR UPDATE re-checks `status` once a racing cancel or
 * dispatch commits: exactly one of them moves the job. The second half reads the statement's
 * snapshot, taken before the move: the jobs a dispatch committed earlier moved (or that moved on
 * since), whose confirmation may be what was lost.
 */
export function queueScheduledJobs(
  tx: Pick<RawSql, '$queryRawUnsafe'>,
  ids: readonly string[],
): Promise<{ id: string; moved: boolean }[]> {
  return tx.$queryRawUnsafe<{ id: string; moved: boolean }[]>(
    `WITH due AS (
         SELECT id FROM jobs WHERE id = ANY($1::uuid[]) AND status = 'scheduled' ORDER BY id FOR UPDATE),
       moved AS (
         UPDATE jobs j SET status = 'queued', queued_at = now(), updated_at = now()
           FROM due WHERE j.id = due.id
         RETURNING j.id)
       SELECT id::text AS id, true AS moved FROM moved
       UNION ALL
       SELECT id::text, false FROM jobs WHERE id = ANY($1::uuid[]) AND status NOT IN ('scheduled', 'canceled')`,
    ids,
  );
}

/** Up to `limit` jobs still `scheduled` `overdueMs` after their time, the oldest first. */
export async function overdueScheduledJobIds(
  db: Pick<RawSql, '$queryRawUnsafe'>,
  overdueMs: number,
  limit: number,
): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM jobs
      WHERE status = 'scheduled' AND scheduled_at < now() - make_interval(secs => $1::float8)
      ORDER BY scheduled_at LIMIT $2`,
    overdueMs / 1000,
    limit,
  );
  return rows.map((row) => row.id);
}

/**
 * `scheduled -> canceled` for the organization's job, only while it is scheduled (dispatching is the
 * mirror UPDATE: the row lock and PostgreSQL's re-check of the WHERE clause let exactly one win).
 * Returns 1 when this call canceled it.
 */
export function cancelScheduledJob(
  tx: Pick<RawSql, '$executeRawUnsafe'>,
  orgId: string,
  jobId: string,
): Promise<number> {
  return tx.$executeRawUnsafe(
    "UPDATE jobs SET status = 'canceled', canceled_at = now(), updated_at = now() WHERE id = $1::uuid AND org_id = $2 AND status = 'scheduled'",
    jobId,
    orgId,
  );
}

/** The pending deliveries of a canceled job are canceled with it. */
export async function cancelPendingDeliveries(tx: Pick<RawSql, '$executeRawUnsafe'>, jobId: string): Promise<void> {
  await tx.$executeRawUnsafe(
    "UPDATE deliveries SET status = 'canceled', updated_at = now() WHERE job_id = $1::uuid AND status = 'pending'",
    jobId,
  );
}
