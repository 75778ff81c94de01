import { createEnvelope, postFailed, postPublished } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import type { Prisma } from '../generated/prisma/client.ts';
import { toEventPayload } from './post-view.ts';

const OPEN = new Set(['pending', 'in_flight']);

/**
 * Derives the job's status once its last delivery finished, in the caller's transaction: the job
 * row is locked first, so of two deliveries finishing together exactly one sees "all done" and
 * announces it. published: every target; partial: some; failed: none (decisions §3).
 */
export async function finishJobIfDone(tx: Prisma.TransactionClient, jobId: string): Promise<void> {
  const [locked] = await tx.$queryRawUnsafe<{ status: string }[]>('SELECT status FROM jobs WHERE id = $1::uuid FOR UPDATE', jobId);
  if (locked === undefined || !['queued', 'processing'].includes(locked.status)) return;
  const job = await tx.job.findUnique({ where: { id: jobId }, include: { deliveries: true } });
  if (job === null || job.deliveries.some((delivery) => OPEN.has(delivery.status))) return;
  const published = job.deliveries.filter((delivery) => delivery.status === 'published').length;
  const status = published === job.deliveries.length ? 'published' : published > 0 ? 'partial' : 'failed';
  const finished = await tx.job.update({ where: { id: jobId }, data: { status, finishedAt: new Date() }, include: { deliveries: true } });
  const context = { orgId: job.orgId, requestId: job.requestId };
  await enqueueOutbox(tx, [createEnvelope(status === 'failed' ? postFailed : postPublished, toEventPayload(finished), context)]);
}
