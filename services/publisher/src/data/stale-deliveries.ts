import type { RawSql } from '@svc/db';

export interface StaleDelivery {
  id: string;
  job_id: string;
  org_id: string;
  request_id: string | null;
}

/**
 * Marks (updated_at) and returns up to `limit` pending deliveries of running jobs, untouched for
 * `staleMs`, that wait for no slot of their organization; rows another transaction holds are skipped.
 */
export function touchStalePendingDeliveries(
  tx: Pick<RawSql, '$queryRawUnsafe'>,
  staleMs: number,
  limit: number,
): Promise<StaleDelivery[]> {
  return tx.$queryRawUnsafe<StaleDelivery[]>(
    `UPDATE deliveries d SET updated_at = now()
         FROM jobs j
        WHERE d.id IN (
                SELECT d2.id FROM deliveries d2 JOIN jobs j2 ON j2.id = d2.job_id
                 WHERE d2.status = 'pending' AND d2.org_wait_since IS NULL AND j2.status IN ('queued', 'processing')
                   AND d2.updated_at < now() - make_interval(secs => $1::float8)
                   AND COALESCE(d2.next_attempt_at, d2.updated_at) < now() - make_interval(secs => $1::float8)
                 ORDER BY d2.updated_at
                 LIMIT $2
                 FOR UPDATE OF d2 SKIP LOCKED)
          AND j.id = d.job_id
        RETURNING d.id::text AS id, d.job_id::text AS job_id, d.org_id, j.request_id`,
    staleMs / 1000,
    limit,
  );
}
