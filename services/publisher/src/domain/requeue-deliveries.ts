import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import { touchStalePendingDeliveries } from '../data/stale-deliveries.ts';
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
    const rows = await touchStalePendingDeliveries(tx, staleMs, REQUEUE_BATCH);
    await enqueueOutbox(
      tx,
      rows.map((row) =>
        createEnvelope(
          publisherDeliveryRun,
          { job_id: row.job_id, delivery_id: row.id },
          { orgId: row.org_id, requestId: row.request_id },
        ),
      ),
    );
    return rows.length;
  });
  if (count > 0) wake();
  return count;
}
