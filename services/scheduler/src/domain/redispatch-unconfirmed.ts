import { enqueueOutbox } from '@svc/db';
import type { Logger } from '@svc/logger';
import { claimUnconfirmedDispatches } from '../data/scheduled-jobs.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { dispatchCommands } from './dispatch-commands.ts';

export interface RedispatchOptions {
  db: PrismaClient;
  logger: Logger;
  /** A dispatch without confirmation is sent again after this long, then after twice as long, ... */
  afterMs: number;
  /** Re-sends allowed before the row is marked `unconfirmed` and logged as an error. */
  maxRedispatches: number;
  batchSize: number;
  /** Jobs per dispatch command (publisher.job_dispatch.v2). */
  jobsPerDispatch: number;
}

/**
 * The rescue pass for a dispatch that never reached the publisher (its command was parked, or lost
 * with the outbox row of a crashed relay): a row `fired` whose confirmation (scheduler.jobs_queued.v1)
 * has not come back within `afterMs * 2^redispatches` gets its dispatch written to the outbox again.
 * The publisher's dispatch is a conditional `scheduled -> queued`, so a re-send for a job that did
 * move (its confirmation was the one lost) changes nothing but sends the confirmation again.
 * Returns how many rows were handled.
 */
export async function redispatchUnconfirmed(options: RedispatchOptions): Promise<number> {
  const { rows, exhausted } = await options.db.$transaction(async (tx) => {
    const stale = await claimUnconfirmedDispatches(tx, options.afterMs, options.batchSize, options.maxRedispatches);
    const resend = stale.filter((row) => row.redispatches <= options.maxRedispatches);
    if (resend.length > 0) {
      await enqueueOutbox(tx, dispatchCommands(resend, options.jobsPerDispatch));
    }
    return { rows: stale, exhausted: stale.filter((row) => row.redispatches > options.maxRedispatches) };
  });
  if (rows.length > exhausted.length)
    options.logger.warn(
      { count: rows.length - exhausted.length, first_job_id: rows[0]!.job_id },
      'scheduled jobs dispatched again: no confirmation from the publisher',
    );
  if (exhausted.length > 0) {
    // Not re-sent again: the job may be stuck in `scheduled` (check the publisher's parking queue).
    options.logger.error(
      { job_ids: exhausted.map((row) => row.job_id) },
      'scheduled jobs never confirmed as queued after every re-send',
    );
  }
  return rows.length;
}
