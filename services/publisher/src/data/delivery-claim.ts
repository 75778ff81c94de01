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
  /**
   * The post of an earlier attempt, recorded before its first comment (which is what remains to do),
   * as the claim found the row: never posted again.
   */
  post: { platformPostId: string; url: string | null } | null;
  /** The first comment's outcome when already recorded (then only the delivery's own end remains). */
  firstCommentStatus: string | null;
  /** A thread's parts that exist on the network, in order: the next part to post is the first missing one. */
  threadParts: { id: string; url: string | null }[];
}

interface Row {
  n: number;
  busy: boolean;
  attempts: number | null;
  reconcile_since: Date | null;
  reconcile_tries: number;
  attempt_handle: string | null;
  previous_handle: string | null;
  quota_deferrals: number;
  platform_post_id: string | null;
  platform_post_url: string | null;
  first_comment_status: string | null;
  thread_parts: { id: string; url: string | null }[] | null;
}

export interface DeliveryToClaim {
  id: string;
  orgId: string;
}

/** A claim's result: the attempt claimed, 'org_busy' (set waiting for a slot), or undefined (not claimable). */
export type ClaimResult = ClaimedAttempt | 'org_busy' | undefined;

/**
 * Each organization's advisory lock, in name order, then its live leases counted with a fresh
 * snapshot (the VOLATILE function of migration 20261123010000): claims of one organization are
 * serialized, and each statement counts the claims committed before it. `locked` reads every row of
 * `busy`, and the deliveries are locked only after it (an InitPlan in their WHERE), so a statement
 * takes its advisory locks before any row lock, as the statements it waits for do.
 */
const ORG_LIMITED = `
  orgs AS MATERIALIZED (
    SELECT o.org, pg_advisory_xact_lock(hashtextextended('delivery-org:' || o.org, 0)) AS locked
      FROM (SELECT DISTINCT org FROM input ORDER BY org) o),
  busy AS MATERIALIZED (SELECT org, delivery_org_leases(org) AS n FROM orgs),
  locked AS MATERIALIZED (SELECT count(*) AS orgs FROM busy)`;
const UNLIMITED = `
  busy AS (SELECT DISTINCT org, 0 AS n FROM input),
  locked AS (SELECT 1 AS orgs)`;

/**
 * pending -> in_flight with a lease, and each job queued -> processing, for every delivery of the
 * group (`BatchQueue` of `@svc/db`): one statement, so one round trip and one commit, and each
 * organization's lock is taken once per group and held for that statement only (it was held across
 * six round trips per delivery: BEGIN, lock, count, two UPDATEs, COMMIT; docs/performance.md). An
 * organization's free slots (the limit minus its live leases) go to its claimable deliveries in
 * arrival order; the others are marked waiting instead (`org_wait_since`, kept from their first
 * wait, and no longer woken: back in line), under the same lock, so the delivery that frees a slot
 * finds them (data/org-waiting.ts).
 * Rows are locked in id order, deliveries then jobs, as the grouped outcome does.
 * Their status is compared with IS NOT DISTINCT FROM (the same for a status, never NULL), which no
 * index answers, so the plan finds them by id. With '=', a plan made on nearly empty tables read
 * deliveries through deliveries_pending_idx and jobs through jobs_org_id_status_idx, every pending
 * delivery and every queued job on each claim once a burst filled them: 2,300-3,500 buffers and
 * 22-34 ms a claim in the accept benchmark (DELIVERY_SESSION_SETTINGS; docs/performance.md, "Plans
 * made on empty tables").
 * A claim to look up an uncertain attempt keeps its number, start and handle; any other starts a new
 * attempt and returns the handle of the one before (`previous_handle`, read from the row as it was):
 * that attempt ended without a post, so its uploaded media may be reused.
 * A delivery named twice is claimed once, for its first item.
 */
function claimSql(limited: boolean): string {
  return `WITH input AS (
    SELECT DISTINCT ON (id) * FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS i(id, org, n) ORDER BY id, n),
  ${limited ? ORG_LIMITED : UNLIMITED},
  was AS MATERIALIZED (
    SELECT d.id, d.job_id, d.attempt_handle, i.org, i.n FROM deliveries d JOIN input i ON i.id = d.id
     WHERE d.status IS NOT DISTINCT FROM 'pending' AND (d.next_attempt_at IS NULL OR d.next_attempt_at <= now() + interval '1 second')
       AND (SELECT orgs FROM locked) >= 0
     ORDER BY d.id
     FOR UPDATE OF d),
  ranked AS MATERIALIZED (
    SELECT w.*, row_number() OVER (PARTITION BY w.org ORDER BY w.n) <= $3::int - b.n AS gets_slot
      FROM was w JOIN busy b ON b.org = w.org),
  claimed AS (
    UPDATE deliveries d SET status = 'in_flight', next_attempt_at = NULL, updated_at = now(),
           lease_until = now() + make_interval(secs => $4::float8),
           attempts = d.attempts + CASE WHEN d.reconcile_since IS NULL THEN 1 ELSE 0 END,
           attempt_started_at = CASE WHEN d.reconcile_since IS NULL THEN now() ELSE d.attempt_started_at END,
           attempt_handle = CASE WHEN d.reconcile_since IS NULL THEN NULL ELSE d.attempt_handle END,
           org_wait_since = NULL, org_woken_until = NULL
      FROM ranked r
     WHERE d.id = r.id AND r.gets_slot AND d.status IS NOT DISTINCT FROM 'pending'
     RETURNING r.n, d.attempts, d.reconcile_since, d.reconcile_tries, d.attempt_handle, d.quota_deferrals,
               CASE WHEN d.reconcile_since IS NULL THEN r.attempt_handle END AS previous_handle,
               d.platform_post_id, d.platform_post_url, d.first_comment_status, d.thread_parts),
  job_locks AS MATERIALIZED (
    SELECT j.id FROM jobs j WHERE j.id IN (SELECT job_id FROM ranked WHERE gets_slot) AND j.status IS NOT DISTINCT FROM 'queued' ORDER BY j.id FOR UPDATE),
  started AS (
    UPDATE jobs SET status = 'processing', started_at = now(), updated_at = now()
     WHERE id IN (SELECT id FROM job_locks) AND status IS NOT DISTINCT FROM 'queued'),
  waiting AS (
    UPDATE deliveries d SET org_wait_since = COALESCE(d.org_wait_since, now()), org_woken_until = NULL, updated_at = now()
      FROM ranked r
     WHERE d.id = r.id AND NOT r.gets_slot
     RETURNING r.n)
SELECT c.n::int AS n, false AS busy, c.attempts, c.reconcile_since, c.reconcile_tries, c.attempt_handle, c.previous_handle, c.quota_deferrals,
       c.platform_post_id, c.platform_post_url, c.first_comment_status, c.thread_parts FROM claimed c
UNION ALL
SELECT w.n::int, true, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL FROM waiting w`;
}

const CLAIM_LIMITED = claimSql(true);
const CLAIM_UNLIMITED = claimSql(false);

/**
 * Claims each delivery's next attempt, committed before the network is called. `orgLimit`: an
 * organization's deliveries in flight at once across every publisher (undefined: no limit); past it
 * nothing is claimed, the delivery waits for a slot and 'org_busy' is its result. Undefined for a
 * delivery that is not claimable (another worker has it, it is finished, or its retry is not due).
 */
export async function claimDeliveries(
  db: RawSql,
  deliveries: readonly DeliveryToClaim[],
  leaseMs: number,
  orgLimit: number | undefined,
): Promise<ClaimResult[]> {
  const rows = await db.$queryRawUnsafe<Row[]>(
    orgLimit === undefined ? CLAIM_UNLIMITED : CLAIM_LIMITED,
    deliveries.map((delivery) => delivery.id),
    deliveries.map((delivery) => delivery.orgId),
    orgLimit ?? 2_147_483_647,
    leaseMs / 1000,
  );
  const byItem = new Map(rows.map((row) => [Number(row.n), row]));
  return deliveries.map((_, index): ClaimResult => {
    const row = byItem.get(index + 1);
    if (row?.busy === true) return 'org_busy';
    if (row === undefined || row.attempts === null) return undefined;
    return {
      attempt: row.attempts,
      reconcileSince: row.reconcile_since,
      reconcileTries: row.reconcile_tries,
      handle: row.attempt_handle,
      previousHandle: row.previous_handle,
      quotaDeferrals: row.quota_deferrals,
      post: row.platform_post_id === null ? null : { platformPostId: row.platform_post_id, url: row.platform_post_url },
      firstCommentStatus: row.first_comment_status,
      threadParts: row.thread_parts ?? [],
    };
  });
}
