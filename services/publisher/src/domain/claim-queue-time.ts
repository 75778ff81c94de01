import type { PrismaClient } from '../generated/prisma/client.ts';
import { databaseNow } from '../data/database-clock.ts';
import { claimTimes, heldTimes, lockQueue, releaseTimes } from '../data/queue.repository.ts';
import { freeTimes, horizonEnd, queueFull, queueNotConfigured } from './queue-times.ts';

export interface ClaimQueueTimeDeps {
  db: PrismaClient;
  minLeadSeconds: number;
  /** The claim waits for the organization's other claims on its queue row; bounded like the RPC. */
  transactionTimeoutMs: number;
}

/**
 * Takes the organization's first queue time, at least SCHEDULE_MIN_LEAD_SECONDS ahead, that no post
 * holds for any of the accounts, for the job about to be stored (docs/api-queue.md, "Slots"). The
 * queue row is locked for the claim, so an organization's queued posts pick their times one at a
 * time and two never get one time for the same account; the slots' primary key holds that too.
 * 409 when the organization has no queue or no free time within two years.
 */
export async function claimQueueTime(
  deps: ClaimQueueTimeDeps,
  input: { orgId: string; accountIds: readonly string[]; jobId: string },
): Promise<Date> {
  return deps.db.$transaction(
    async (tx) => {
      const queue = await lockQueue(tx, input.orgId);
      if (queue === null) throw queueNotConfigured();
      const now = (await databaseNow(tx)) ?? new Date();
      const from = new Date(now.getTime() + deps.minLeadSeconds * 1000);
      const held = new Set(await heldTimes(tx, input.orgId, input.accountIds, from, horizonEnd(from)));
      const [at] = freeTimes(queue, from, held, 1);
      if (at === undefined) throw queueFull();
      const taken = await claimTimes(tx, input.orgId, input.accountIds, at, input.jobId);
      if (taken !== input.accountIds.length)
        throw new Error(`queue time ${at.toISOString()} was free for ${taken} of ${input.accountIds.length} accounts`);
      return at;
    },
    { timeout: deps.transactionTimeoutMs, maxWait: deps.transactionTimeoutMs },
  );
}

/** Gives the time back when the job it was claimed for could not be stored (refused or failed). */
export async function releaseQueueTime(db: PrismaClient, jobId: string, at: Date): Promise<void> {
  await releaseTimes(db, jobId, at);
}
