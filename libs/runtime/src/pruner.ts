import type { Logger } from '@svc/logger';
import { startPeriodicTask, type PeriodicTask } from './periodic-task.ts';

export interface PrunerOptions {
  /** What is pruned, for the logs: "inbox ids", "Stripe events". */
  what: string;
  intervalMs: number;
  logger: Logger;
  /** Deletes what is past its retention (batch by batch, checking `shouldStop` between batches); returns how many rows. */
  prune: (shouldStop: () => boolean) => Promise<number>;
}

/**
 * Runs a retention pass every `intervalMs`, the first one interval after start (a starting replica
 * has more urgent work, and what waits an hour more is harmless), so a table that grows with use stays the
 * size of its retention. A failed pass is logged and the next one retries; `stop()` lets the current
 * batch finish and skips the rest (the next pass, on any replica, deletes it).
 */
export function startPruner(options: PrunerOptions): PeriodicTask {
  let stopping = false;
  const task = startPeriodicTask({
    intervalMs: options.intervalMs,
    firstRunAfterInterval: true,
    run: async () => {
      const pruned = await options.prune(() => stopping);
      if (pruned > 0) options.logger.info({ count: pruned }, `${options.what} past their retention pruned`);
    },
    onError: (err) => options.logger.warn({ err }, `pruning ${options.what} failed; the next pass retries`),
  });
  return {
    stop: () => {
      stopping = true;
      return task.stop();
    },
  };
}
