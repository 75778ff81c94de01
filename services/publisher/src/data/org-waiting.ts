import type { RawSql } from '@svc/db';

/**
 * A delivery waiting for a slot of its organization. Every query for waiting deliveries uses this
 * very predicate: it is the partial index's (migration 20261123020000), which the planner uses only
 * for a query whose conditions imply it.
 */
export const WAITING = "org_wait_since IS NOT NULL AND status = 'pending'";

/**
 * A waiting delivery no publisher has woken, or whose waker stopped before claiming it (its
 * `org_woken_until` passed). It implies WAITING, so the partial index serves it.
 */
export const WAKEABLE = `${WAITING} AND (org_woken_until IS NULL OR org_woken_until < now())`;

/**
 * Takes up to `$3` of the organization's wakeable deliveries, oldest first, no more than its free
 * slots (`$2` minus its live leases), and marks them woken for `$4` seconds, in one statement, for
 * the publisher that wakes them to run them in its own process. Until then every other wake passes
 * them over; they stay marked waiting, so they keep their place in line if their claim finds the
 * organization busy again, and a waker that stops before its claim leaves them to the next wake.
 * It was a command through the outbox, the relay and the broker per woken delivery: in the soak
 * (one organization at its limit) 1.5 commands per delivery, the broker's and the outbox's work and
 * a consumer's read each (docs/performance.md, "Soak"). Only the unindexed `org_woken_until`
 * changes, so the update can be HOT. No lock: waking too many is harmless (a woken delivery that
 * finds no slot waits again), and no waiting delivery is missed: a wait committed before this
 * statement is seen by it, one committed after it wakes itself (DeliveryRunner.waitForSlot).
 */
const WAKE_SQL = `
UPDATE deliveries SET org_woken_until = now() + make_interval(secs => $4::float8)
 WHERE id IN (SELECT id FROM deliveries WHERE org_id = $1 AND ${WAKEABLE}
               ORDER BY org_wait_since
               LIMIT (SELECT LEAST($3::int, GREATEST(0, $2::int - count(*)::int)) FROM deliveries
                       WHERE org_id = $1 AND status = 'in_flight' AND lease_until > now())
               FOR UPDATE SKIP LOCKED)
RETURNING id::text AS id`;

/**
 * Wakes up to `most` of the organization's waiting deliveries, no more than it has free slots, for
 * `forMs`; returns their ids, for the caller to run now. A delivery that frees its slot wakes one: a
 * woken delivery is not in flight until its claim, so waking for every free slot would wake a
 * successor for the same slot again at each release. The sweeper wakes up to `limit`, for slots
 * freed without a statement (a worker died and its lease ran out).
 */
export async function wakeWaitingDeliveries(db: RawSql, orgId: string, limit: number, most: number, forMs: number): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(WAKE_SQL, orgId, limit, most, forMs / 1000);
  return rows.map((row) => row.id);
}

/**
 * Whether any delivery of the organization waits for a slot and is not woken already: one probe of
 * a small partial index, so a delivery that frees its slot pays for the wake only when someone waits.
 */
export async function hasWaitingDeliveries(db: RawSql, orgId: string): Promise<boolean> {
  const [row] = await db.$queryRawUnsafe<{ waiting: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM deliveries WHERE org_id = $1 AND ${WAKEABLE}) AS waiting`,
    orgId,
  );
  return row?.waiting === true;
}

/**
 * The sweeper's pass: every organization with deliveries waiting wakes as many as it has free
 * slots, for `forMs`; returns their ids. It catches slots freed without a statement (a worker died
 * and its lease ran out), a wake that failed, a woken delivery that did not take its slot (its job
 * was cancelled meanwhile) and one whose waker stopped before its claim.
 */
export async function wakeWaitingEverywhere(db: RawSql, limit: number, forMs: number): Promise<string[]> {
  const orgs = await db.$queryRawUnsafe<{ org_id: string }[]>(`SELECT DISTINCT org_id FROM deliveries WHERE ${WAKEABLE}`);
  const woken: string[] = [];
  for (const { org_id: orgId } of orgs) woken.push(...await wakeWaitingDeliveries(db, orgId, limit, limit, forMs));
  return woken;
}
