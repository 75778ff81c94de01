import { createEnvelope, schedulerJobUnschedule, type PostViewType } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import { conflict, notFound } from '@svc/errors';
import { isUuid, type JobsRepository } from '../data/jobs.repository.ts';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import { cancelPendingDeliveries, cancelScheduledJob } from '../data/scheduled-jobs.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { toPostView } from './post-view.ts';

/**
 * Cancels a job while it is scheduled. The decision is one conditional UPDATE (`... AND status =
 * 'scheduled'`); dispatching a due job is the mirror UPDATE, so when both race, the row lock and
 * PostgreSQL's re-check of the WHERE clause let exactly one win (docs/reliability.md, "Cancel and fire race").
 */
export interface CancelJobDeps {
  db: PrismaClient;
  jobs: JobsRepository;
  limits: PlanLimitsRepository;
  wake: () => void;
  /**
   * How long the cancel's transaction may last, waits included. It waits for the organization's
   * usage row (`giveBack`), which every accept and cancel of the organization updates: thirty
   * cancels at once queue on it, and Prisma's default of 5 s ended the last ones with a 500 on a
   * loaded machine (the tests' services wait 10 s for an answer). The caller waits RPC_TIMEOUT_MS
   * for the answer, so the transaction may too.
   */
  transactionTimeoutMs: number;
}

export async function cancelJob(
  deps: CancelJobDeps,
  orgId: string,
  jobId: string,
  requestId: string | null,
): Promise<PostViewType> {
  if (!isUuid(jobId)) throw notFound(`The job ${jobId}`);
  const canceled = await deps.db.$transaction(
    async (tx) => {
      const won = await cancelScheduledJob(tx, orgId, jobId);
      if (won === 0) return false;
      await cancelPendingDeliveries(tx, jobId);
      await enqueueOutbox(tx, [createEnvelope(schedulerJobUnschedule, { job_id: jobId }, { orgId, requestId })]);
      // A job that never ran is not a post: its unit of the monthly quota comes back. Last, so the
      // organization's usage row, which its every accept and cancel updates, stays locked only for this
      // statement and the commit.
      await deps.limits.giveBack(orgId, jobId, tx);
      return true;
    },
    { timeout: deps.transactionTimeoutMs, maxWait: deps.transactionTimeoutMs },
  );
  const job = await deps.jobs.find(orgId, jobId);
  if (job === null) throw notFound(`The job ${jobId}`);
  if (!canceled) {
    if (job.status === 'canceled') return toPostView(job);
    throw conflict(`The job ${jobId} is ${job.status} and can no longer be canceled; only scheduled jobs can.`);
  }
  deps.wake();
  return toPostView(job);
}
