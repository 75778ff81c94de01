import type { Logger } from '@svc/logger';
import { startPeriodicTask, type PeriodicTask } from '@svc/runtime';
import type { AccountsRepository } from '../data/accounts.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { TokenKeeper } from './token-keeper.ts';

export interface TokenRefresherOptions {
  db: PrismaClient;
  accounts: AccountsRepository;
  keeper: TokenKeeper;
  logger: Logger;
  intervalMs: number;
  aheadMs: number;
  expiringWindowMs: number;
  batchSize?: number;
}

/**
 * The background pass: refreshes tokens before they expire, flags tokens that will lapse with no way
 * to refresh them (`expiring`), and marks lapsed ones `requires_reconnect` with `connection.revoked`.
 * Safe on many replicas: each refresh holds the account's refresh lease and skips fresh tokens.
 */
export class TokenRefresher {
  private task: PeriodicTask | undefined;

  constructor(private readonly options: TokenRefresherOptions) {}

  start(): void {
    this.task = startPeriodicTask({
      intervalMs: this.options.intervalMs,
      run: () => this.pass(),
      onError: (error) => this.options.logger.error({ err: error }, 'token refresh pass failed'),
    });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  async pass(): Promise<void> {
    const { accounts, keeper, logger } = this.options;
    try {
      const due = await accounts.dueForRefresh(
        new Date(Date.now() + this.options.aheadMs),
        this.options.batchSize ?? 100,
      );
      for (const row of due) {
        await keeper
          .refresh(row.orgId, row.id, false)
          .catch((error: unknown) => logger.warn({ err: error, account_id: row.id }, 'background refresh failed'));
      }
      const flagged = await accounts.markExpiring(new Date(Date.now() + this.options.expiringWindowMs));
      if (flagged > 0) logger.info({ count: flagged }, 'accounts flagged expiring');
      for (const row of await accounts.expiredWithoutRefresh(this.options.batchSize ?? 100)) {
        await this.options.db.$transaction((tx) =>
          keeper.markLost(tx, row, 'requires_reconnect', 'token expired and cannot be refreshed'),
        );
      }
    } catch (error) {
      logger.error({ err: error }, 'token refresh pass failed');
    }
  }
}
