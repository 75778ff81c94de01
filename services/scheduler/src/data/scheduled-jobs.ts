import { deleteInBatches, type RawSql } from '@svc/db';

/** A scheduled_jobs row claimed for a dispatch. */
export interface ClaimedScheduledJob {
  job_id: string;
  org_id: string;
  run_at: Date;
  request_id: string | null;
}

export interface FiredScheduledJob extends ClaimedScheduledJob {
  /** How late it fired: from its due time to the claim (database clock). */
  lag_ms: number;
}

export interface RedispatchedScheduledJob extends ClaimedScheduledJob {
  redispatches: number;
}

/**
 * `scheduled -> fired` for up to `limit` jobs due by the database clock, the earliest first; rows
 * another replica holds are skipped.
 */
export function fireDueScheduledJobs(tx: Pick<RawSql, '$queryRawUnsafe'>, limit: number): Promise<FiredScheduledJob[]> {
  return tx.$queryRawUnsafe<FiredScheduledJob[]>(
    `WITH due AS (
           SELECT job_id FROM scheduled_jobs
            WHERE status = 'scheduled' AND run_at <= now()
            ORDER BY run_at
            FOR UPDATE SKIP LOCKED
            LIMIT $1)
         UPDATE scheduled_jobs s SET status = 'fired', fired_at = now()
           FROM due WHERE s.job_id = due.job_id
         RETURNING s.job_id::text AS job_id, s.org_id, s.run_at, s.request_id,
                   (EXTRACT(EPOCH FROM (now() - s.run_at)) * 1000)::float8 AS lag_ms`,
    limit,
  );
}

/** Milliseconds from `now()` to the earliest job not yet due, or null when none waits. */
export async function nextDueMs(db: Pick<RawSql, '$queryRawUnsafe'>): Promise<number | null> {
  const [next] = await db.$queryRawUnsafe<{ ms: number | null }[]>(
    "SELECT (EXTRACT(EPOCH FROM (min(run_at) - now())) * 1000)::float8 AS ms FROM scheduled_jobs WHERE status = 'scheduled' AND run_at > now()",
  );
  return next?.ms ?? null;
}

/**
 * Up to `limit` rows `fired` longer than `afterMs * 2^redispatches` ago, each counted as one more
 * re-send (`fired_at` restarts the wait); a row past `maxRedispatches` becomes `unconfirmed`
 * instead (its returned `redispatches` is then `maxRedispatches + 1`).
 */
export function claimUnconfirmedDispatches(
  tx: Pick<RawSql, '$queryRawUnsafe'>,
  afterMs: number,
  limit: number,
  maxRedispatches: number,
): Promise<RedispatchedScheduledJob[]> {
  return tx.$queryRawUnsafe<RedispatchedScheduledJob[]>(
    `WITH stale AS (
         SELECT job_id FROM scheduled_jobs
          WHERE status = 'fired' AND fired_at <= now() - make_interval(secs => $1::float8 * power(2, redispatches))
          ORDER BY fired_at
          FOR UPDATE SKIP LOCKED
          LIMIT $2)
       UPDATE scheduled_jobs s
          SET status = CASE WHEN s.redispatches >= $3 THEN 'unconfirmed' ELSE 'fired' END,
              fired_at = CASE WHEN s.redispatches >= $3 THEN s.fired_at ELSE now() END,
              redispatches = LEAST(s.redispatches + 1, $3 + 1)
         FROM stale WHERE s.job_id = stale.job_id
       RETURNING s.job_id::text AS job_id, s.org_id, s.run_at, s.request_id, s.redispatches`,
    afterMs / 1000,
    limit,
    maxRedispatches,
  );
}

/** Deletes settled rows (handed over, canceled, unconfirmed) due more than `retentionHours` ago; returns how many. */
export function deleteSettledScheduledJobs(
  db: RawSql,
  options: { retentionHours: number; batchSize: number; shouldStop?: () => boolean },
): Promise<number> {
  return deleteInBatches(db, {
    table: 'scheduled_jobs',
    where: "status IN ('handed_over', 'canceled', 'unconfirmed') AND run_at < now() - make_interval(hours => $1::int)",
    params: [options.retentionHours],
    batchSize: options.batchSize,
    shouldStop: options.shouldStop,
  });
}
