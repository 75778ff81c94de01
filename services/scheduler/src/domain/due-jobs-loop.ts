import { enqueueOutbox } from '@svc/db';
import type { Logger } from '@svc/logger';
import { fireDueScheduledJobs, nextDueMs } from '../data/scheduled-jobs.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { dispatchCommands } from './dispatch-commands.ts';

export interface DueJobsLoopOptions {
  db: PrismaClient;
  logger: Logger;
  pollMs: number;
  batchSize: number;
  /** Jobs per dispatch command (publisher.job_dispatch.v2). */
  jobsPerDispatch: number;
  /** Wakes the outbox relay right after a batch committed. */
  wake: () => void;
  /** Observes how late each job fired, by the database clock (metrics). */
  onFired?: (lagMs: number) => void;
}

/**
 * After a failed pass (the database unreachable, a transaction that could not start in time on a
 * loaded server) the loop tries again this soon, or at its poll interval if that is shorter: a whole
 * poll interval later (up to SCHEDULER_POLL_MS, 60 s) would leave every job due meanwhile waiting
 * for it.
 */
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * Fires due jobs (docs/reliability.md, "Due jobs are claimed by the database clock"): each pass
 * claims rows with `run_at <= now()` (the database clock, never the process's) FOR UPDATE SKIP
 * LOCKED, marks them fired and writes their dispatch to the outbox (many jobs per
 * publisher.job_dispatch.v2 command), all in one transaction. Any number of replicas may run: a row
 * is claimed by exactly one. The first pass runs at start, so jobs that came due while every
 * scheduler was down fire at once.
 */
export class DueJobsLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** When the current sleep ends (process clock); undefined while a pass runs. */
  private sleepingUntil: number | undefined;
  /** The earliest due time told (`scheduled`) while a pass ran, whose reads may have come before its row. */
  private toldWhilePassing: number | undefined;

  constructor(private readonly options: DueJobsLoopOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
  }

  /**
   * A job was just scheduled through this process, due at `runAt`: a sleep that would end after it
   * ends now, so the next pass reads its row and waits for it exactly. Jobs scheduled through
   * another replica are seen by this one's next pass at the latest, a poll interval later: their
   * own replica waits for them.
   */
  scheduled(runAt: Date): void {
    const at = runAt.getTime();
    if (this.sleepingUntil === undefined) this.toldWhilePassing = Math.min(this.toldWhilePassing ?? at, at);
    else if (at < this.sleepingUntil) this.wakeUp?.();
  }

  /** Claims and dispatches one batch; returns how many jobs fired. */
  async fireDue(): Promise<number> {
    return (await this.pass()).fired;
  }

  /**
   * How long until the next waiting job is due, by the database clock, capped at the poll interval:
   * the loop wakes at a job's due time instead of up to a poll interval after it (jobs are often due
   * on a whole second, many at once). Rows already due but locked by another replica are not waited
   * for (`run_at > now()`), so a busy replica never makes this one spin.
   */
  async untilNextDue(): Promise<number> {
    return this.waitFor(await nextDueMs(this.options.db));
  }

  /**
   * One batch claimed and dispatched, and the next due time read in the same transaction, so by the
   * same clock as the claim (`now()` is the transaction's start): a job not yet due for the claim is
   * waited for even if it comes due before the next statement. Read by a later statement, such a job
   * was already due, so not waited for, and the loop slept a whole poll interval past it.
   */
  private async pass(): Promise<{ fired: number; waitMs: number }> {
    const started = performance.now();
    const { fired, nextMs } = await this.options.db.$transaction(async (tx) => {
      const rows = await fireDueScheduledJobs(tx, this.options.batchSize);
      if (rows.length > 0) await enqueueOutbox(tx, dispatchCommands(rows, this.options.jobsPerDispatch));
      return { fired: rows, nextMs: rows.length < this.options.batchSize ? await nextDueMs(tx) : null };
    });
    if (fired.length > 0) {
      this.options.wake();
      for (const row of fired) this.options.onFired?.(row.lag_ms);
      this.options.logger.info(
        { count: fired.length, max_lag_ms: Math.max(...fired.map((row) => row.lag_ms)) },
        'scheduled jobs fired',
      );
    }
    // Measured from the transaction's start: the time the pass took since is already waited.
    return {
      fired: fired.length,
      waitMs: this.waitFor(nextMs === null ? null : nextMs - (performance.now() - started)),
    };
  }

  private waitFor(ms: number | null): number {
    return ms === null ? this.options.pollMs : Math.min(this.options.pollMs, Math.max(1, Math.ceil(ms)));
  }

  private async run(): Promise<void> {
    while (this.running) {
      let fired = 0;
      let waitMs: number;
      try {
        ({ fired, waitMs } = await this.pass());
      } catch (error) {
        this.options.logger.error({ err: error }, 'firing due jobs failed');
        waitMs = Math.min(this.options.pollMs, RETRY_AFTER_FAILURE_MS);
      }
      const told = this.toldWhilePassing;
      this.toldWhilePassing = undefined;
      if (told !== undefined) waitMs = Math.min(waitMs, Math.max(0, told - Date.now()));
      if (fired < this.options.batchSize) await this.sleep(waitMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    this.sleepingUntil = Date.now() + ms;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    }).finally(() => {
      this.sleepingUntil = undefined;
    });
  }
}
