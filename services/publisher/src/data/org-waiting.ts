import type { RawSql } from '@svc/db';

/**
 * A delivery waiting for a slot of its organization, not woken by a publisher. Every query for
 * waiting deliveries uses this very predicate: it is the partial index's (migration
 * 20261123040000), which the planner uses only for a query whose conditions imply it.
 */
export const WAITING = "org_wait_since IS NOT NULL AND org_woken_until IS NULL AND status = 'pending'";

/**
 * Takes up to `$3` of the organization's waiting deliveries, oldest first, no more than its free
 * slots (`$2` minus its live leases, counted as the claim counts them, and the deliveries woken but
 * not claimed yet: each holds the slot it was woken for until its claim or until its mark runs
 * out), and marks them woken for `$4` seconds, in one statement, for the publisher that wakes them
 * to run them in its own process.
 * The woken are counted up to the limit only (more leave no slot free all the same), in the order of
 * their own index (migration 20261124000000): a scan of it that stops after `$2` rows is then the
 * cheapest plan whatever the column's statistics say. Counted plainly, the planner sometimes chose a
 * bitmap AND with the organization's pending rows instead, 20 times slower (docs/performance.md,
 * "Plans made on empty tables").
 * Marked, a delivery leaves the index of waiting ones, so no other wake or probe reads past it, and
 * keeps `org_wait_since`, so its claim puts it back in its place in line if the organization is
 * busy again. It was a command through the outbox, the relay and the broker per woken delivery: in
 * the soak (one organization at its limit) 1.5 commands per delivery, the broker's and the outbox's
 * work and a consumer's read each (docs/performance.md, "One organization's
 * limit"). No lock: waking too many is harmless (a woken delivery that finds
 * no slot waits again), and no waiting delivery is missed: a wait committed before this statement
 * is seen by it, one committed after it wakes itself (DeliveryRunner.waitForSlot).
 */
const WAKE_SQL = `
UPDATE deliveries SET org_woken_until = now() + make_interval(secs => $4::float8)
 WHERE id IN (SELECT id FROM deliveries WHERE org_id = $1 AND ${WAITING}
               ORDER BY org_wait_since
               LIMIT (SELECT LEAST($3::int, GREATEST(0, $2::int
                       - delivery_org_leases($1)
                       - (SELECT count(*)::int FROM (SELECT FROM deliveries WHERE org_id = $1 AND org_woken_until > now() AND status = 'pending'
                                                     ORDER BY org_woken_until LIMIT $2) woken))))
               FOR UPDATE SKIP LOCKED)
RETURNING id::text AS id, job_id::text AS job_id`;

/** A delivery woken for a free slot of its organization: run it, or send it a command naming its job. */
export interface WokenDelivery {
  id: string;
  jobId: string;
}

/**
 * Wakes up to `most` of the organization's waiting deliveries, no more than it has free slots, for
 * `forMs`; returns them, for the caller to run now (or, in a process that only accepts, to send
 * their commands). A delivery that frees its slot wakes one; the sweeper wakes up to `limit`, for
 * slots freed without a statement (a worker died and its lease ran out).
 */
export async function wakeWaitingDeliveries(
  db: RawSql,
  orgId: string,
  limit: number,
  most: number,
  forMs: number,
): Promise<WokenDelivery[]> {
  const rows = await db.$queryRawUnsafe<{ id: string; job_id: string }[]>(WAKE_SQL, orgId, limit, most, forMs / 1000);
  return rows.map((row) => ({ id: row.id, jobId: row.job_id }));
}

/**
 * Whether any delivery of the organization waits for a slot (not woken already): one probe of a
 * small partial index, so a delivery that frees its slot pays for the wake only when someone waits.
 */
export async function hasWaitingDeliveries(db: RawSql, orgId: string): Promise<boolean> {
  const [row] = await db.$queryRawUnsafe<{ waiting: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM deliveries WHERE org_id = $1 AND ${WAITING}) AS waiting`,
    orgId,
  );
  return row?.waiting === true;
}

/**
 * The sweeper's pass: deliveries whose waker stopped before their claim (their mark ran out) go
 * back in line, in their old place; then every organization with deliveries waiting wakes as many
 * as it has free slots, for `forMs`; returns them. It catches slots freed without a statement
 * (a worker died and its lease ran out), a wake that failed, and a woken delivery that did not take
 * its slot (its job was cancelled meanwhile).
 */
export async function wakeWaitingEverywhere(db: RawSql, limit: number, forMs: number): Promise<WokenDelivery[]> {
  // Pending rows only: their index holds no other (a mark left on a row that is no longer pending
  // is read by nobody).
  await db.$executeRawUnsafe(
    "UPDATE deliveries SET org_woken_until = NULL WHERE org_woken_until < now() AND status = 'pending'",
  );
  const orgs = await db.$queryRawUnsafe<{ org_id: string }[]>(
    `SELECT DISTINCT org_id FROM deliveries WHERE ${WAITING}`,
  );
  const woken: WokenDelivery[] = [];
  for (const { org_id: orgId } of orgs) woken.push(...(await wakeWaitingDeliveries(db, orgId, limit, limit, forMs)));
  return woken;
}
