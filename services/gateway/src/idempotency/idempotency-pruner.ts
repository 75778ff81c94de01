import { deleteInBatches, type RawSql } from '@svc/db';
import type { Logger } from '@svc/logger';
import { startPruner, type PeriodicTask } from '@svc/runtime';

export interface IdempotencyPrunerOptions {
  db: RawSql;
  logger: Logger;
  /** Time between passes; each pass deletes every record expired by then. */
  intervalMs?: number;
  /** Rows per DELETE: short statements and short locks, however large the backlog. */
  batchSize?: number;
}

/**
 * Deletes expired idempotency records in the background. A pass deletes batch after batch until none
 * is left, so it keeps up with any rate of new keys (the earlier 1,000 rows a minute per gateway fell
 * behind at 17 keys a second). SKIP LOCKED lets several gateway replicas prune side by side. Expired
 * records still present are harmless: the store's insert takes an expired key over.
 */
export class IdempotencyPruner {
  private task: PeriodicTask | undefined;
  private stopping = false;

  constructor(private readonly options: IdempotencyPrunerOptions) {}

  start(): void {
    this.task ??= startPruner({
      what: 'idempotency keys',
      intervalMs: this.options.intervalMs ?? 60_000,
      logger: this.options.logger,
      prune: () => this.pruneExpired(),
    });
  }

  /** Waits for the current batch only; the next pass (any replica) finishes the rest. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.task?.stop();
  }

  /** Deletes every record expired now, in batches; returns how many. */
  async pruneExpired(): Promise<number> {
    return deleteInBatches(this.options.db, {
      table: 'idempotency_records',
      where: 'expires_at <= now()',
      params: [],
      batchSize: this.options.batchSize ?? 5000,
      shouldStop: () => this.stopping,
    });
  }
}
