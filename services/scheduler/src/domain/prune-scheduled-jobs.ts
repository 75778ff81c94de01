import { deleteSettledScheduledJobs } from '../data/scheduled-jobs.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

/**
 * Deletes settled rows (handed over, canceled, unconfirmed) whose due time is older than the
 * retention, batch after batch until none is left, so the table holds only recent history whatever
 * the rate of scheduled jobs. A canceled row is kept until then on purpose: it turns a schedule
 * command that arrives after its unschedule into a no-op. Returns how many rows were deleted.
 */
export async function pruneScheduledJobs(
  db: PrismaClient,
  options: { retentionHours: number; batchSize: number; shouldStop?: () => boolean },
): Promise<number> {
  return deleteSettledScheduledJobs(db, options);
}
