import type { ServiceRuntime, WorkerWiring } from '@svc/runtime';
import type { Config } from './config.ts';
import { schedulerCommandHandlers, schedulerCommands } from './consumers/scheduler.consumers.ts';
import { DueJobsLoop } from './domain/due-jobs-loop.ts';
import { firingLagMetric } from './domain/firing-lag-metric.ts';
import type { PrismaClient } from './generated/prisma/client.ts';

/** Builds the scheduler: the consumer of schedule/unschedule commands and the due-jobs loop. */
export async function wire(runtime: ServiceRuntime<PrismaClient>, config: Config): Promise<WorkerWiring> {
  const { db, logger, relay } = runtime;
  await runtime.broker.consume({ queue: 'scheduler.work', messages: schedulerCommands, handlers: schedulerCommandHandlers(db) });
  const loop = new DueJobsLoop({ db, logger, pollMs: config.SCHEDULER_POLL_MS, batchSize: config.SCHEDULER_BATCH_SIZE, wake: () => relay.wake(), onFired: firingLagMetric(runtime.metrics.registry) });
  loop.start();
  return { stop: () => loop.stop() };
}
