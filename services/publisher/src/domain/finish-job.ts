import { createEnvelope, postFailed, postPublished } from '@svc/contracts';
import { enqueueOutbox, type RawSql } from '@svc/db';
import { markJobFinished } from '../data/finished-job.ts';
import { toEventPayload } from './post-view.ts';

/**
 * Counts one finished delivery on its job, in the caller's transaction (the one that moved the
 * delivery to published/failed, so each delivery is counted exactly once). The increment locks the
 * job row only for that statement's transaction; the delivery that brings the count to the number
 * of targets derives the job's status and announces it: published (every target), partial (some),
 * failed (none) (decisions §3). Only then are the deliveries read, once, for the event.
 */
export async function countFinishedDelivery(tx: RawSql, jobId: string, published: boolean): Promise<void> {
  const [job] = await tx.$queryRawUnsafe<{ status: string; finished: number; published: number; total: number }[]>(
    `UPDATE jobs SET finished_deliveries = finished_deliveries + 1, published_deliveries = published_deliveries + $2, updated_at = now()
      WHERE id = $1::uuid
      RETURNING status, finished_deliveries AS finished, published_deliveries AS published, cardinality(account_ids) AS total`,
    jobId,
    published ? 1 : 0,
  );
  if (job === undefined || job.finished < job.total || !['queued', 'processing'].includes(job.status)) return;
  const status = job.published === job.total ? 'published' : job.published > 0 ? 'partial' : 'failed';
  const finished = await markJobFinished(tx, jobId, status);
  if (finished === undefined) return;
  const context = { orgId: finished.orgId, requestId: finished.requestId };
  await enqueueOutbox(tx, [createEnvelope(status === 'failed' ? postFailed : postPublished, toEventPayload(finished), context)]);
}
