import { createEnvelope, postFailed, postPublished } from '@svc/contracts';
import { enqueueOutbox, type TransactionalClient } from '@svc/db';
import { recordOutcomesClosingJobs, type OutcomeToRecord, type OutcomeRecorded } from '../data/delivery-outcome.ts';
import { readFinishedJobs } from '../data/finished-job.ts';
import { toEventPayload } from './post-view.ts';

/**
 * Records outcomes that may close their jobs (a job's last delivery, as far as its run could tell),
 * for as many deliveries as finish together, and announces each job closed, in one transaction:
 * the outcomes, the counts and the jobs' final status in one statement, then one read of the closed
 * jobs with their deliveries for the events (`post.published`, `post.failed`) and one outbox
 * insert. So each delivery is counted exactly once, and a job is announced exactly once, by the
 * transaction that closed it.
 */
export async function recordClosingOutcomes(
  db: TransactionalClient,
  items: readonly OutcomeToRecord[],
): Promise<OutcomeRecorded[]> {
  return db.$transaction(async (tx) => {
    const { results, closedJobIds } = await recordOutcomesClosingJobs(tx, items);
    const closed = await readFinishedJobs(tx, closedJobIds);
    await enqueueOutbox(
      tx,
      closed.map((job) =>
        createEnvelope(job.status === 'failed' ? postFailed : postPublished, toEventPayload(job), {
          orgId: job.orgId,
          requestId: job.requestId,
        }),
      ),
    );
    return results;
  });
}
