import pLimit from 'p-limit';
import {
  publisherDeliveryRun,
  publisherDeliveryRunBatch,
  publisherJobDispatch,
  publisherJobDispatchBatch,
  type Handlers,
} from '@svc/contracts';
import { handleEachItem } from '@svc/messaging';
import { dispatchJobs, type DispatchDeps } from '../domain/dispatch-job.ts';
import type { DeliveryRunner } from '../domain/run-delivery.ts';

/** v2 carries several deliveries of a job (a job's targets when it is queued); v1 one (retries, lookups, re-sent commands, and a previous release's). */
export const deliveryCommands = [publisherDeliveryRunBatch, publisherDeliveryRun] as const;
/** v2 carries many due jobs (the scheduler sends it); v1, one job, is what a scheduler of the previous release sent. */
export const dispatchCommands = [publisherJobDispatchBatch, publisherJobDispatch] as const;

/**
 * Both handlers are idempotent on the state they change (conditional UPDATEs), not on the message
 * id: a redelivered or duplicated command finds the work done and is acknowledged.
 * `concurrency` deliveries of these commands run at once (DELIVERY_CONCURRENCY): the broker's
 * prefetch counts messages, and a v2 message holds up to 10. A v2 message is acknowledged once each
 * of its deliveries has run; if one could not (accounts unreachable), the message fails and is
 * retried whole, and the others find their work done.
 */
export function deliveryCommandHandlers(deps: {
  runner: DeliveryRunner;
  concurrency: number;
}): Handlers<typeof deliveryCommands> {
  const slot = pLimit(deps.concurrency);
  const run = (deliveryId: string) => slot(() => deps.runner.run(deliveryId));
  return {
    'publisher.delivery_run.v2': (env) => handleEachItem(env.payload.delivery_ids, run),
    'publisher.delivery_run.v1': (env) => run(env.payload.delivery_id),
  };
}

export function dispatchCommandHandlers(deps: DispatchDeps): Handlers<typeof dispatchCommands> {
  return {
    'publisher.job_dispatch.v2': async (env) => {
      await dispatchJobs(
        deps,
        env.payload.jobs.map((job) => job.job_id),
      );
    },
    'publisher.job_dispatch.v1': async (env) => {
      await dispatchJobs(deps, [env.payload.job_id]);
    },
  };
}
