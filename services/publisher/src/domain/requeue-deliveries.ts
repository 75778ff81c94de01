import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** Rows per transaction: a long accounts outage can leave thousands; each batch commits on its own. */
export const REQUEUE_BATCH = 500;

/**
 * Gives up to REQUEUE_BATCH pending deliveries of running jobs, untouched for `staleMs` (their command
 * was parked, e.g. while accounts was down), a fresh command: marked and enqueued in one transaction,
 * one statement each, so a failure leaves them to the next sweep rather than marked and forgotten.
 * A delivery waiting for a slot of its organization has no command on purpose: the delivery that
 * frees a slot, or the sweep's own wake pass, gives it one (data/org-waiting.ts). A command from
 * here would only have it claim, find its organization busy and wait again.
 * Returns how many it requeued; callers loop while a batch comes back full.
 */
export async function requeueStalePending(db: PrismaClient, staleMs: number, wake: () => void): Promise<number> {
  const count = await db.$transaction(async (tx) => {
    const rows = await tx.$queryRawUnsafe<{ id: string; job_id: string; org_id: string; request_id: string | null }[]>(
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
      REQUEUE_BATCH,
    );
    await enqueueOutbox(tx, rows.map((row) => createEnvelope(publisherDeliveryRun, { job_id: row.job_id, delivery_id: row.id }, { orgId: row.org_id, requestId: row.request_id })));
    return rows.length;
  });
  if (count > 0) wake();
  return count;
}
