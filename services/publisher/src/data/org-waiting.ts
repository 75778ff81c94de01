import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import type { RawSql } from '@svc/db';

/**
 * A delivery waiting for a slot of its organization. Every query for waiting deliveries uses this
 * very predicate: it is the partial index's (migration 20261123020000), which the planner uses only
 * for a query whose conditions imply it.
 */
export const WAITING = "org_wait_since IS NOT NULL AND status = 'pending'";

/**
 * Takes up to `$3` of the organization's waiting deliveries off the wait, oldest first, no more than
 * its free slots (`$2` minus its live leases), and gives each its command in the outbox, in one
 * statement: one round trip and one commit, where a transaction took five (BEGIN, this, the
 * outbox's INSERT and NOTIFY, COMMIT). The soak ran this 2.5 times per delivery, so it was three
 * quarters of the publisher database's statements (docs/performance.md, "Soak"). The command is
 * `$4`, an envelope made by createEnvelope, with each woken delivery's message id, ids and job's
 * request id filled in. No lock: waking too many is harmless (a woken delivery that finds no slot
 * waits again), and no waiting delivery is missed: a wait committed before this statement is seen
 * by it, one committed after it wakes itself (DeliveryRunner.waitForSlot). The relays listening on
 * this database are notified at commit, once, when anything was woken.
 */
const WAKE_SQL = `
WITH free AS (
       SELECT LEAST($3::int, GREATEST(0, $2::int - count(*)::int)) AS n FROM deliveries
        WHERE org_id = $1 AND status = 'in_flight' AND lease_until > now()),
     woken AS (
       UPDATE deliveries SET org_wait_since = NULL, updated_at = now()
        WHERE id IN (SELECT id FROM deliveries WHERE org_id = $1 AND ${WAITING}
                      ORDER BY org_wait_since LIMIT (SELECT n FROM free) FOR UPDATE SKIP LOCKED)
        RETURNING id, job_id),
     queued AS (
       INSERT INTO outbox_messages (id, type, envelope)
       SELECT c.id, c.envelope->>'type', c.envelope
         FROM (SELECT gen_random_uuid() AS id, w.id AS delivery_id, w.job_id, j.request_id FROM woken w JOIN jobs j ON j.id = w.job_id) m,
              LATERAL (SELECT m.id, $4::jsonb || jsonb_build_object('message_id', m.id, 'request_id', m.request_id,
                              'payload', jsonb_build_object('job_id', m.job_id, 'delivery_id', m.delivery_id)) AS envelope) c
       RETURNING id),
     notified AS (SELECT pg_notify('outbox_messages', '') FROM (SELECT 1 FROM queued LIMIT 1) any_queued)
SELECT (SELECT count(*) FROM queued)::int AS woken, (SELECT count(*) FROM notified)::int AS notified`;

/**
 * Wakes up to `most` of the organization's waiting deliveries, no more than it has free slots;
 * returns how many (their commands are in the outbox: wake the relay). A delivery that frees its
 * slot wakes one: a woken delivery is not in flight until its command arrives, so waking for every
 * free slot would wake a successor for the same slot again at each release. The sweeper wakes up
 * to `limit`, for slots freed without a statement (a worker died and its lease ran out).
 */
export async function wakeWaitingDeliveries(db: RawSql, orgId: string, limit: number, most: number): Promise<number> {
  // The ids are placeholders, replaced per woken delivery by the statement; the rest is the contract's.
  const placeholder = '00000000-0000-4000-8000-000000000000';
  const command = createEnvelope(publisherDeliveryRun, { job_id: placeholder, delivery_id: placeholder }, { orgId, requestId: null, messageId: placeholder });
  const [row] = await db.$queryRawUnsafe<{ woken: number }[]>(WAKE_SQL, orgId, limit, most, JSON.stringify(command));
  return row?.woken ?? 0;
}

/**
 * Whether any delivery of the organization waits for a slot: one probe of a small partial index,
 * so a delivery that frees its slot pays for the wake only when someone waits.
 */
export async function hasWaitingDeliveries(db: RawSql, orgId: string): Promise<boolean> {
  const [row] = await db.$queryRawUnsafe<{ waiting: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM deliveries WHERE org_id = $1 AND ${WAITING}) AS waiting`,
    orgId,
  );
  return row?.waiting === true;
}

/**
 * The sweeper's pass: every organization with deliveries waiting wakes as many as it has free
 * slots. It catches slots freed without a statement (a worker died and its lease ran out), a wake
 * that failed, and a woken delivery that did not take its slot (its job was cancelled meanwhile).
 */
export async function wakeWaitingEverywhere(db: RawSql, limit: number): Promise<number> {
  const orgs = await db.$queryRawUnsafe<{ org_id: string }[]>(`SELECT DISTINCT org_id FROM deliveries WHERE ${WAITING}`);
  let woken = 0;
  for (const { org_id: orgId } of orgs) woken += await wakeWaitingDeliveries(db, orgId, limit, limit);
  return woken;
}
