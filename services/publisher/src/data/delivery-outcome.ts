import type { RawSql } from '@svc/db';
import { WAITING } from './org-waiting.ts';

/** A delivery's final outcome, as recorded. */
export type RecordedOutcome =
  | { kind: 'published'; platformPostId: string; url: string | null }
  | { kind: 'failed'; code: string; message: string };

/**
 * When attempt `$2` still owns the delivery: a post is recorded only by the attempt in flight; a
 * failure also by a pending delivery that was never claimed (its account was lost), but never over
 * a post the network already gave.
 */
const OWNED = {
  published: "status = 'in_flight' AND attempts = $2",
  failed: "attempts = $2 AND status IN ('in_flight', 'pending') AND platform_post_id IS NULL",
} as const;

const SET = {
  published: `status = 'published', platform_post_id = $3, platform_post_url = $4, error_code = NULL, error_message = NULL,
              lease_until = NULL, reconcile_since = NULL, published_at = now(), finished_at = now(), updated_at = now()`,
  failed: 'status = \'failed\', error_code = $3, error_message = $4, lease_until = NULL, reconcile_since = NULL, finished_at = now(), updated_at = now()',
} as const;

function values(outcome: RecordedOutcome): [string, string | null] {
  return outcome.kind === 'published' ? [outcome.platformPostId, outcome.url] : [outcome.code, outcome.message.slice(0, 2000)];
}

/** Moves the delivery to its outcome if attempt `attempt` still owns it, in the caller's transaction: 1 if it did, 0 if not. */
export function markDeliveryOutcome(tx: RawSql, deliveryId: string, attempt: number, outcome: RecordedOutcome): Promise<number> {
  return tx.$executeRawUnsafe(`UPDATE deliveries SET ${SET[outcome.kind]} WHERE id = $1::uuid AND ${OWNED[outcome.kind]}`, deliveryId, attempt, ...values(outcome));
}

/**
 * The outcome and its count on the job in one statement, for a delivery that is not its job's last
 * (most of them): one round trip instead of four (BEGIN, two UPDATEs, COMMIT). The delivery's row
 * is locked first, as the transaction does, then the job's; the job's count moves only while it
 * stays short of the targets, and the delivery moves only if it did. False when nothing was
 * written: the attempt no longer owns the delivery, or this delivery finishes the job, whose status
 * and event need the transaction (`markDeliveryOutcome`, then `countFinishedDelivery`).
 * When written, it also says whether deliveries of the organization wait for a slot (as of the
 * statement's start), so the slot this one frees is offered without a probe of its own.
 */
export async function recordOutcomeUnlessLast(db: RawSql, deliveryId: string, attempt: number, outcome: RecordedOutcome): Promise<{ recorded: false } | { recorded: true; othersWaiting: boolean }> {
  const owned = OWNED[outcome.kind];
  const [row] = await db.$queryRawUnsafe<{ recorded: number; waiting: boolean }[]>(
    `WITH own AS (SELECT id, job_id, org_id FROM deliveries WHERE id = $1::uuid AND ${owned} FOR UPDATE),
     counted AS (
       UPDATE jobs j SET finished_deliveries = j.finished_deliveries + 1,
              published_deliveries = j.published_deliveries + ${outcome.kind === 'published' ? 1 : 0}, updated_at = now()
         FROM own
        WHERE j.id = own.job_id AND j.finished_deliveries + 1 < cardinality(j.account_ids)
        RETURNING j.id),
     done AS (UPDATE deliveries SET ${SET[outcome.kind]} WHERE id = $1::uuid AND ${owned} AND EXISTS (SELECT 1 FROM counted) RETURNING id)
     SELECT count(*)::int AS recorded,
            EXISTS (SELECT 1 FROM deliveries WHERE org_id = (SELECT org_id FROM own) AND ${WAITING}) AS waiting
       FROM done`,
    deliveryId,
    attempt,
    ...values(outcome),
  );
  return (row?.recorded ?? 0) > 0 ? { recorded: true, othersWaiting: row!.waiting } : { recorded: false };
}
