import type { ServiceRuntime, WorkerWiring } from '@svc/runtime';
import type { Config } from './config.ts';
import {
  retiredSchedulerMessages,
  schedulerCommandHandlers,
  schedulerMessages,
} from './consumers/scheduler.consumers.ts';
import { DueJobsLoop } from './domain/due-jobs-loop.ts';
import { firingLagMetric } from './domain/firing-lag-metric.ts';
import { MaintenanceLoop } from './domain/maintenance-loop.ts';
import type { PrismaClient } from './generated/prisma/client.ts';

/** Builds the scheduler: the consumer of its commands and confirmations, the due-jobs loop and the rescue/prune pass. */
export async function wire(runtime: ServiceRuntime<PrismaClient>, config: Config): Promise<WorkerWiring> {
  const { db, logger, relay } = runtime;
  const loop = new DueJobsLoop({
    db,
    logger,
    pollMs: config.SCHEDULER_POLL_MS,
    batchSize: config.SCHEDULER_BATCH_SIZE,
    jobsPerDispatch: config.SCHEDULER_JOBS_PER_DISPATCH,
    wake: () => relay.wake(),
    onFired: firingLagMetric(runtime.metrics.registry),
  });
  await runtime.broker.consume({
    queue: 'scheduler.work',
    messages: schedulerMessages,
    retired: retiredSchedulerMessages,
    handlers: schedulerCommandHandlers(db, (runAt) => loop.scheduled(runAt)),
  });
  loop.start();
  const maintenance = new MaintenanceLoop({
    db,
    logger,
    intervalMs: config.SCHEDULER_MAINTENANCE_MS,
    redispatchAfterMs: config.SCHEDULER_REDISPATCH_AFTER_MS,
    maxRedispatches: config.SCHEDULER_MAX_REDISPATCHES,
    retentionHours: config.SCHEDULER_RETENTION_HOURS,
    batchSize: config.SCHEDULER_BATCH_SIZE,
    jobsPerDispatch: config.SCHEDULER_JOBS_PER_DISPATCH,
    wake: () => relay.wake(),
  });
  maintenance.start();
  return {
    stop: async () => {
      await maintenance.stop();
      await loop.stop();
    },
  };
}
