import { createEnvelope, postQueued, publisherDeliveryRun } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { toEventPayload } from './post-view.ts';

/**
 * A scheduled job is due: `scheduled -> queued` with one conditional UPDATE (the mirror of cancel),
 * then its delivery commands and post.queued in the same transaction. A canceled or already
 * dispatched job makes this a no-op, so a redelivered command is harmless.
 */
export async function dispatchJob(deps: { db: PrismaClient; wake: () => void }, jobId: string): Promise<boolean> {
  const dispatched = await deps.db.$transaction(async (tx) => {
    const won = await tx.$executeRawUnsafe(
      "UPDATE jobs SET status = 'queued', queued_at = now(), updated_at = now() WHERE id = $1::uuid AND status = 'scheduled'",
      jobId,
    );
    if (won === 0) return false;
    const job = (await tx.job.findUnique({ where: { id: jobId }, include: { deliveries: true } }))!;
    const context = { orgId: job.orgId, requestId: job.requestId };
    await enqueueOutbox(tx, [
      createEnvelope(postQueued, toEventPayload(job), context),
      ...job.deliveries.filter((delivery) => delivery.status === 'pending').map((delivery) => createEnvelope(publisherDeliveryRun, { job_id: jobId, delivery_id: delivery.id }, context)),
    ]);
    return true;
  });
  if (dispatched) deps.wake();
  return dispatched;
}
