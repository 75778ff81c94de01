import type { Logger } from '@svc/logger';
import type { AnalyticsRepository } from '../data/analytics.repository.ts';
import { refreshRows, type RefreshDeps } from './refresh-rows.ts';

export interface BackgroundSyncOptions {
  deps: RefreshDeps;
  repo: AnalyticsRepository;
  logger: Logger;
  /** Pause between passes when nothing was due. */
  intervalMs: number;
  /** Rows claimed per pass. */
  batchSize: number;
  /** How long a claimed row is hidden from other replicas while it is read. */
  leaseMs: number;
  /** How long `stop` waits for a running pass; rows it leaves claimed come back when their lease ends. */
  stopWaitMs?: number;
  /**
   * Readings per second the passes take at most on average (0 or undefined: no budget). A pass that
   * read n rows holds the next one until n / budget seconds after it started, whatever wakes it.
   */
  maxReadsPerSecond?: number;
}

/**
 * The background sync: claims rows whose `next_sync_at` has come (cadence by post age, a 429's pause,
 * a transient failure's retry) and refreshes them. `runOnce` is the whole of one pass, so tests drive
 * it with an injected clock instead of waiting; `start` runs passes until `stop`.
 *
 * The readings due grow with the posts alive (the cadence reads a post 264 times in its first month),
 * so on cores shared with the publisher they would take more and more of its CPU: `maxReadsPerSecond`
 * caps the passes' average rate, and rows past it wait their turn, oldest due first
 * (docs/performance.md, "The readings' budget by default").
 */
export class BackgroundSync {
  private timer: NodeJS.Timeout | undefined;
  /** When the scheduled pass runs (Date.now() ms), while one is scheduled. */
  private nextPassAt: number | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  /** When the budget lets the next pass start (Date.now() ms); 0 without a budget or before any pass. */
  private budgetFreeAt = 0;

  constructor(private readonly options: BackgroundSyncOptions) {}

  /** One pass; returns how many rows it read. */
  async runOnce(): Promise<number> {
    const { deps, repo } = this.options;
    const rows = await repo.claimDue(deps.clock(), this.options.batchSize, this.options.leaseMs);
    await refreshRows(deps, rows);
    return rows.length;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * A new row is due in `delayMs`: run a pass then instead of waiting for the interval, unless one is
   * due sooner (a running pass schedules the next itself).
   */
  wake(delayMs = 0): void {
    if (this.stopped || this.running !== undefined) return;
    if (this.nextPassAt !== undefined && this.nextPassAt <= Date.now() + delayMs) return;
    this.schedule(delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextPassAt = undefined;
    if (this.running === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.stopWaitMs ?? 5000);
    });
    try {
      await Promise.race([this.running, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  private schedule(requestedDelayMs: number): void {
    const delayMs = Math.max(requestedDelayMs, this.budgetFreeAt - Date.now());
    clearTimeout(this.timer);
    this.nextPassAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.nextPassAt = undefined;
      this.running = this.pass().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  private async pass(): Promise<void> {
    const startedAt = Date.now();
    let read = 0;
    try {
      read = await this.runOnce();
    } catch (error) {
      this.options.logger.error({ err: error }, 'analytics background pass failed');
    }
    const budget = this.options.maxReadsPerSecond ?? 0;
    if (budget > 0) this.budgetFreeAt = startedAt + (read * 1000) / budget;
    if (!this.stopped) this.schedule(read >= this.options.batchSize ? 0 : this.options.intervalMs);
  }
}
