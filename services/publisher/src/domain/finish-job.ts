import { createEnvelope, postFailed, postPublished } from '@svc/contracts';
import { enqueueOutboxClaimed, type OutboxHandOff, type TransactionalClient } from '@svc/db';
import { recordOutcomesClosingJobs, type OutcomeToRecord, type OutcomeRecorded } from '../data/delivery-outcome.ts';
import { readFinishedJobs } from '../data/finished-job.ts';
import { toEventPayload } from './post-view.ts';

/**
 * Records outcomes that may close their jobs (a job's last delivery, as far as its run could tell),
 * for as many deliveries as finish together, and announces each job closed, in one transaction:
 * the outcomes, the counts and the jobs' final status in one statement, then one read of the closed
 * jobs with their deliveries for the events (`post.published`, `post.failed`) and one outbox
 * insert. So each delivery is counted exactly once, and a job is announced exactly once, by the
 * transaction that closed it. The events are recorded claimed for this process's relay and handed to
 * it once committed (a job's closing is the delivery path's most frequent message).
 */
export async function recordClosingOutcomes(db: TransactionalClient, outbox: OutboxHandOff, items: readonly OutcomeToRecord[]): Promise<OutcomeRecorded[]> {
  const { results, events } = await db.$transaction(async (tx) => {
    const recorded = await recordOutcomesClosingJobs(tx, items);
    const closed = await readFinishedJobs(tx, recorded.closedJobIds);
    const claimed = await enqueueOutboxClaimed(tx, closed.map((job) => createEnvelope(
      job.status === 'failed' ? postFailed : postPublished,
      toEventPayload(job),
      { orgId: job.orgId, requestId: job.requestId },
    )), outbox.claimSeconds);
    return { results: recorded.results, events: claimed };
  });
  // Not awaited: the deliveries go on while the events are confirmed; a failure stays with the relay.
  void outbox.handOff(events);
  return results;
}
