import type { PostViewType } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import { conflict, notFound } from '@svc/errors';
import { isUuid, type JobsRepository } from '../data/jobs.repository.ts';
import { resetFailedTargets } from '../data/retry-targets.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { deliveryRunCommands } from './delivery-run-commands.ts';
import { toPostView } from './post-view.ts';

export interface RetryJobDeps {
  db: PrismaClient;
  jobs: JobsRepository;
  deliveryRunBatches?: boolean;
  wake: () => void;
  transactionTimeoutMs: number;
}

/**
 * Delivers a finished post's failed targets again (docs/api-conventions.md, "Retry failed targets"):
 * the reset and the commands that run them commit together, so a retry either happens whole or not
 * at all. Nothing is counted against the monthly posts: the post was counted when it was accepted.
 */
export async function retryJob(
  deps: RetryJobDeps,
  orgId: string,
  jobId: string,
  requestId: string | null,
): Promise<PostViewType> {
  if (!isUuid(jobId)) throw notFound(`The post ${jobId}`);
  const reset = await deps.db.$transaction(
    async (tx) => {
      const ids = await resetFailedTargets(tx, orgId, jobId);
      await enqueueOutbox(
        tx,
        ids.length === 0 ? [] : deliveryRunCommands(jobId, ids, { orgId, requestId }, deps.deliveryRunBatches),
      );
      return ids;
    },
    { timeout: deps.transactionTimeoutMs, maxWait: deps.transactionTimeoutMs },
  );
  const job = await deps.jobs.find(orgId, jobId);
  if (job === null) throw notFound(`The post ${jobId}`);
  if (reset.length === 0)
    throw conflict(
      `The post ${jobId} is ${job.status} and has no failed target to retry; only a failed or partial post's failed targets can be retried.`,
    );
  deps.wake();
  return toPostView(job);
}
