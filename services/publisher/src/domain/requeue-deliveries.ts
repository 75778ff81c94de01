import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** Writes a fresh delivery command for each delivery (the runner ignores any that is not due or done). */
export async function requeueDeliveries(db: PrismaClient, deliveryIds: string[], wake: () => void): Promise<void> {
  const rows = await db.delivery.findMany({ where: { id: { in: deliveryIds } }, include: { job: { select: { requestId: true } } } });
  await db.$transaction(async (tx) => {
    await enqueueOutbox(tx, rows.map((row) => createEnvelope(publisherDeliveryRun, { job_id: row.jobId, delivery_id: row.id }, { orgId: row.orgId, requestId: row.job.requestId })));
  });
  wake();
}
