import type { RawSql } from '@svc/db';

/**
 * Resets a finished post's failed targets to `pending` in ONE statement, and puts the job back to
 * `queued`: the job row is locked (FOR UPDATE) while it is `failed` or `partial`, so of two retries
 * at once the second waits, then finds it `queued` and resets nothing (the caller answers 409); a
 * target is never reset twice, so never delivered twice.
 *
 * Only `failed` targets without a native id: a target with a `platform_post_id` exists on the network
 * and is never posted again. Each reset target keeps the attempts it spent in `prior_attempts` and
 * starts a fresh budget at 0. One that failed `outcome_unknown` (its post may exist) is reset with
 * `reconcile_since` set: its claim looks the previous attempt up at the network before any new post
 * (the runner's reconciliation) from that attempt's start, with its handle: looking from the
 * retry's time would miss a post made longer than the lookup's skew before it, and post it again.
 * The finished count goes down by the targets reset, so the job closes again when they finish.
 */
const RETRY_SQL = `
WITH job AS (
  SELECT id FROM jobs WHERE id = $1::uuid AND org_id = $2 AND status IN ('failed', 'partial') FOR UPDATE
),
reset AS (
  UPDATE deliveries d
     SET status = 'pending',
         prior_attempts = d.prior_attempts + d.attempts,
         attempts = 0,
         quota_deferrals = 0,
         reconcile_tries = 0,
         reconcile_since = CASE WHEN d.error_code = 'outcome_unknown' THEN COALESCE(d.attempt_started_at, d.created_at) END,
         attempt_started_at = CASE WHEN d.error_code = 'outcome_unknown' THEN d.attempt_started_at END,
         attempt_handle = CASE WHEN d.error_code = 'outcome_unknown' THEN d.attempt_handle END,
         error_code = NULL, error_message = NULL, next_attempt_at = NULL, lease_until = NULL,
         org_wait_since = NULL, org_woken_until = NULL, finished_at = NULL,
         first_comment_status = NULL, first_comment_id = NULL, first_comment_error_code = NULL,
         first_comment_error_message = NULL, updated_at = now()
    FROM job
   WHERE d.job_id = job.id AND d.status = 'failed' AND d.platform_post_id IS NULL
  RETURNING d.id, d.position
),
requeued AS (
  UPDATE jobs j
     SET status = 'queued', queued_at = now(), finished_at = NULL, updated_at = now(),
         finished_deliveries = j.finished_deliveries - (SELECT count(*) FROM reset)::int
    FROM job
   WHERE j.id = job.id AND EXISTS (SELECT 1 FROM reset)
  RETURNING j.id
)
SELECT id::text AS id FROM reset ORDER BY position`;

/** The ids of the targets reset, in the post's order; none when the post had no failed target to retry. */
export async function resetFailedTargets(tx: RawSql, orgId: string, jobId: string): Promise<string[]> {
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(RETRY_SQL, jobId, orgId);
  return rows.map((row) => row.id);
}
