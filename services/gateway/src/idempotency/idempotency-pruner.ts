import { deleteInBatches } from '@svc/db';
import type { Logger } from '@svc/logger';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface IdempotencyPrunerOptions {
  db: PrismaClient;
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
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<unknown> = Promise.resolve();
  private stopping = false;

  constructor(private readonly options: IdempotencyPrunerOptions) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.batchSize = options.batchSize ?? 5000;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.pass = this.pruneExpired().catch((error: unknown) => this.options.logger.warn({ err: error }, 'pruning expired idempotency keys failed; next pass retries'));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  /** Deletes every record expired now, in batches; returns how many. */
  async pruneExpired(): Promise<number> {
    return deleteInBatches(this.options.db, {
      table: 'idempotency_records',
      where: 'expires_at <= now()',
      params: [],
      batchSize: this.batchSize,
      shouldStop: () => this.stopping,
    });
  }
}
