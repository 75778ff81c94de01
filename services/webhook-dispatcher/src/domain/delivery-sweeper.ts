import type { Logger } from '@svc/logger';
import type { DeliveriesRepository } from '../data/deliveries.repository.ts';
import type { AttemptCommands } from './attempt-commands.ts';

export interface SweeperOptions {
  deliveries: DeliveriesRepository;
  commands: AttemptCommands;
  logger: Logger;
  intervalMs: number;
  graceMs: number;
  batchSize?: number;
}

/**
 * The backstop that makes the delivery rows, not the broker, the source of truth: a pending delivery
 * overdue by more than the grace (its command was lost to a crash, or its worker died mid-attempt and
 * the claim lease ran out) gets a fresh command. Duplicates are harmless: the claim admits one.
 */
export class DeliverySweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: SweeperOptions) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  async sweep(): Promise<number> {
    const overdue = await this.options.deliveries.overdue(this.options.graceMs, this.options.batchSize ?? 500);
    for (const row of overdue)
      await this.options.commands.now({ id: row.id, endpointId: row.endpoint_id, orgId: row.org_id });
    if (overdue.length > 0) this.options.logger.warn({ count: overdue.length }, 'overdue webhook deliveries re-sent');
    return overdue.length;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then(
          () => undefined,
          (error: unknown) => this.options.logger.error({ err: error }, 'webhook delivery sweep failed'),
        )
        .finally(() => this.schedule(this.options.intervalMs));
    }, ms);
    this.timer.unref();
  }
}
