import type { RawSql } from '@svc/db';

/** What a claimed attempt needs to know of its delivery. */
export interface ClaimedAttempt {
  attempt: number;
  /** Set when this claim is for looking up the previous attempt's post (its start time). */
  reconcileSince: Date | null;
  reconcileTries: number;
  handle: string | null;
  /** A new attempt's predecessor's handle (its post does not exist): media it uploaded may be reused. */
  previousHandle: string | null;
  quotaDeferrals: number;
}

interface Row {
  busy: number;
  attempts: number | null;
  reconcile_since: Date | null;
  reconcile_tries: number;
  attempt_handle: string | null;
  previous_handle: string | null;
  quota_deferrals: number;
}

/**
 * The organization's advisory lock, then its live leases counted with a fresh snapshot (the
 * VOLATILE function of migration 20261123010000): claims of one organization are serialized, and
 * each one counts the claims committed before it. Both CTEs are MATERIALIZED so the lock is taken
 * before the count runs.
 */
const ORG_LIMITED = `
  lock AS MATERIALIZED (SELECT pg_advisory_xact_lock(hashtextextended('delivery-org:' || $4, 0))),
  busy AS MATERIALIZED (SELECT delivery_org_leases($4) AS n FROM lock)`;
// $4 is named here too: a parameter no query mentions has no type and PostgreSQL refuses the statement.
const UNLIMITED = `
  busy AS (SELECT 0 AS n, $4::text AS org)`;

/**
 * pending -> in_flight with a lease, and the job queued -> processing: one statement, so one round
 * trip and one commit, and the organization's lock is held for that statement only (it was held
 * across six round trips: BEGIN, lock, count, two UPDATEs, COMMIT; docs/performance.md). With the
 * organization at its limit, the delivery is marked waiting instead (`org_wait_since`, kept from
 * its first wait), under the same lock, so the delivery that frees a slot finds it
 * (data/org-waiting.ts).
 * A claim to look up an uncertain attempt keeps its number, start and handle; any other starts a
 * new attempt and returns the handle of the one before (`previous_handle`, read from the row as it
 * was): that attempt ended without a post, so its uploaded media may be reused.
 */
function claimSql(limited: boolean): string {
  return `WITH ${limited ? ORG_LIMITED : UNLIMITED},
  was AS (SELECT id, job_id, attempt_handle FROM deliveries WHERE id = $1::uuid AND (SELECT n FROM busy) < $5 FOR UPDATE),
  claimed AS (
    UPDATE deliveries d SET status = 'in_flight', next_attempt_at = NULL, updated_at = now(),
           lease_until = now() + make_interval(secs => $2::float8),
           attempts = d.attempts + CASE WHEN d.reconcile_since IS NULL THEN 1 ELSE 0 END,
           attempt_started_at = CASE WHEN d.reconcile_since IS NULL THEN now() ELSE d.attempt_started_at END,
           attempt_handle = CASE WHEN d.reconcile_since IS NULL THEN NULL ELSE d.attempt_handle END,
           org_wait_since = NULL
      FROM was
     WHERE d.id = was.id AND d.status = 'pending' AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
     RETURNING d.attempts, d.reconcile_since, d.reconcile_tries, d.attempt_handle, d.quota_deferrals,
               CASE WHEN d.reconcile_since IS NULL THEN was.attempt_handle END AS previous_handle),
  started AS (
    UPDATE jobs SET status = 'processing', started_at = now(), updated_at = now()
     WHERE id = $3::uuid AND status = 'queued' AND EXISTS (SELECT 1 FROM claimed)),
  waiting AS (
    UPDATE deliveries SET org_wait_since = COALESCE(org_wait_since, now()), updated_at = now()
     WHERE id = $1::uuid AND (SELECT n FROM busy) >= $5 AND status = 'pending'
       AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second'))
SELECT (SELECT n FROM busy) AS busy, c.attempts, c.reconcile_since, c.reconcile_tries, c.attempt_handle, c.previous_handle, c.quota_deferrals
  FROM (SELECT 1) one LEFT JOIN claimed c ON true`;
}

const CLAIM_LIMITED = claimSql(true);
const CLAIM_UNLIMITED = claimSql(false);

/**
 * Claims the delivery's next attempt, committed before the network is called. `orgLimit`: the
 * organization's deliveries in flight at once across every publisher (undefined: no limit); past
 * it nothing is claimed, the delivery waits for a slot and 'org_busy' is returned. Undefined when
 * the delivery is not claimable (another worker has it, it is finished, or its retry is not due).
 */
export async function claimDelivery(
  db: RawSql,
  delivery: { id: string; jobId: string; orgId: string },
  leaseMs: number,
  orgLimit: number | undefined,
): Promise<ClaimedAttempt | 'org_busy' | undefined> {
  const [row] = await db.$queryRawUnsafe<Row[]>(
    orgLimit === undefined ? CLAIM_UNLIMITED : CLAIM_LIMITED,
    delivery.id,
    leaseMs / 1000,
    delivery.jobId,
    delivery.orgId,
    orgLimit ?? 1,
  );
  if (row === undefined) return undefined;
  if (orgLimit !== undefined && row.busy >= orgLimit) return 'org_busy';
  if (row.attempts === null) return undefined;
  return {
    attempt: row.attempts,
    reconcileSince: row.reconcile_since,
    reconcileTries: row.reconcile_tries,
    handle: row.attempt_handle,
    previousHandle: row.previous_handle,
    quotaDeferrals: row.quota_deferrals,
  };
}
