import type { Logger } from '@svc/logger';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { pruneScheduledJobs } from './prune-scheduled-jobs.ts';
import { redispatchUnconfirmed } from './redispatch-unconfirmed.ts';

export interface MaintenanceLoopOptions {
  db: PrismaClient;
  logger: Logger;
  intervalMs: number;
  redispatchAfterMs: number;
  maxRedispatches: number;
  retentionHours: number;
  batchSize: number;
  /** Jobs per re-sent dispatch command (publisher.job_dispatch.v2). */
  jobsPerDispatch: number;
  /** Wakes the outbox relay after dispatches were written again. */
  wake: () => void;
}

/**
 * The scheduler's periodic housekeeping, apart from the due-jobs loop so a slow prune never delays
 * a firing: re-sends dispatches without confirmation, then prunes settled rows. Safe on any number
 * of replicas (both passes claim rows with SKIP LOCKED).
 */
export class MaintenanceLoop {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private stopping = false;
  private busy = false;

  constructor(private readonly options: MaintenanceLoopOptions) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      if (this.busy) return; // a long prune: the next tick starts once it finished
      this.busy = true;
      this.pass = this.runOnce()
        .catch((error: unknown) =>
          this.options.logger.error({ err: error }, 'scheduler maintenance pass failed; the next one retries'),
        )
        .finally(() => (this.busy = false));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  async runOnce(): Promise<void> {
    const { db, logger, batchSize } = this.options;
    let resent = 0;
    for (let handled = batchSize; handled === batchSize && !this.stopping;) {
      handled = await redispatchUnconfirmed({
        db,
        logger,
        afterMs: this.options.redispatchAfterMs,
        maxRedispatches: this.options.maxRedispatches,
        batchSize,
        jobsPerDispatch: this.options.jobsPerDispatch,
      });
      resent += handled;
    }
    if (resent > 0) this.options.wake();
    const pruned = await pruneScheduledJobs(db, {
      retentionHours: this.options.retentionHours,
      batchSize,
      shouldStop: () => this.stopping,
    });
    if (pruned > 0) logger.info({ count: pruned }, 'settled scheduled jobs pruned');
  }
}
