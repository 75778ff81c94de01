import type { Logger } from '@svc/logger';
import { expiredLeaseDeliveryIds } from '../data/delivery-leases.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { REQUEUE_BATCH } from './requeue-deliveries.ts';

export interface InFlightSweeperOptions {
  db: PrismaClient;
  logger: Logger;
  intervalMs: number;
  /** Resolves one delivery (the runner: an expired lease is taken over and its attempt reconciled). */
  resolve: (deliveryId: string) => Promise<void>;
  /** Requeues one batch of pending deliveries that lost their command; returns how many. */
  requeueStale: () => Promise<number>;
  /** Dispatches scheduled jobs long past their time (their dispatch never came); returns how many. */
  dispatchOverdue: () => Promise<number>;
  /** Wakes deliveries waiting for their organization's slots where slots are free; returns how many. */
  wakeWaiting: () => Promise<number>;
}

const EXPIRED_BATCH = 100;

/**
 * Backstop so no job stays `queued`/`processing` forever: deliveries whose lease ran out (their
 * worker died; a live one renews it) are taken over and reconciled, and pending deliveries whose
 * command was parked get a new one, batch after batch, scheduled jobs whose dispatch never came
 * are dispatched, and deliveries waiting for a slot of their organization are woken where slots are
 * free. Any number of replicas may sweep; take-overs
 * are conditional UPDATEs, requeues skip rows another sweeper holds, and a duplicate command is harmless.
 */
export class InFlightSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: InFlightSweeperOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => {
        this.running = undefined;
      });
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async sweep(): Promise<void> {
    try {
      const expired = await expiredLeaseDeliveryIds(this.options.db, EXPIRED_BATCH);
      for (const id of expired) {
        // One delivery that cannot be resolved now (accounts down) must not stop the others.
        await this.options
          .resolve(id)
          .catch((error: unknown) =>
            this.options.logger.warn(
              { err: error, delivery_id: id },
              'taking over an expired delivery failed; next sweep',
            ),
          );
      }
      let requeued = 0;
      let batch: number;
      do {
        batch = await this.options.requeueStale();
        requeued += batch;
      } while (batch === REQUEUE_BATCH);
      if (requeued > 0)
        this.options.logger.warn({ count: requeued }, 'pending deliveries without a command; re-enqueued');
      const overdue = await this.options.dispatchOverdue();
      if (overdue > 0)
        this.options.logger.warn(
          { count: overdue },
          'scheduled jobs long past their time without a dispatch; dispatched',
        );
      const woken = await this.options.wakeWaiting();
      if (woken > 0)
        this.options.logger.info(
          { count: woken },
          'deliveries waiting for a free slot of their organization woken by the sweep',
        );
    } catch (error) {
      this.options.logger.error({ err: error }, 'in-flight sweep failed');
    }
  }
}
