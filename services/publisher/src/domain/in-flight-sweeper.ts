import type { Logger } from '@svc/logger';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface InFlightSweeperOptions {
  db: PrismaClient;
  logger: Logger;
  intervalMs: number;
  /** Resolves one delivery (the runner: an expired in-flight delivery becomes outcome_unknown). */
  resolve: (deliveryId: string) => Promise<void>;
  /**
   * A pending delivery of a running job untouched for this long lost its command (parked after the
   * broker's retry tiers, e.g. while accounts was down): it gets a fresh one.
   */
  stalePendingMs: number;
  /** Re-enqueues the delivery command through the outbox. */
  requeue: (deliveryIds: string[]) => Promise<void>;
}

/**
 * Backstop so no job stays `queued`/`processing` forever: deliveries left in flight whose command
 * never came back (parked, or lost with a broker) are resolved like a redelivered command would once
 * their lease is over, and pending deliveries whose command was parked get a new one. Any number of
 * replicas may sweep; resolutions are conditional UPDATEs and a duplicate command is harmless.
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
      const rows = await this.options.db.$queryRawUnsafe<{ id: string }[]>(
        "SELECT id::text AS id FROM deliveries WHERE status = 'in_flight' AND lease_until < now() ORDER BY lease_until LIMIT 100",
      );
      for (const row of rows) await this.options.resolve(row.id);
      const stale = await this.options.db.$queryRawUnsafe<{ id: string }[]>(
        `UPDATE deliveries d SET updated_at = now()
           FROM jobs j
          WHERE d.job_id = j.id AND j.status IN ('queued', 'processing') AND d.status = 'pending'
            AND COALESCE(d.next_attempt_at, d.updated_at) < now() - make_interval(secs => $1::float8)
            AND d.updated_at < now() - make_interval(secs => $1::float8)
          RETURNING d.id::text AS id`,
        this.options.stalePendingMs / 1000,
      );
      if (stale.length > 0) {
        this.options.logger.warn({ count: stale.length }, 'pending deliveries without a command; re-enqueued');
        await this.options.requeue(stale.map((row) => row.id));
      }
    } catch (error) {
      this.options.logger.error({ err: error }, 'in-flight sweep failed');
    }
  }
}
