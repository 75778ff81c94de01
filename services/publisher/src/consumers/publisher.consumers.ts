import { publisherDeliveryRun, publisherJobDispatch, publisherJobDispatchBatch, type Handlers } from '@svc/contracts';
import { dispatchJobs, type DispatchDeps } from '../domain/dispatch-job.ts';
import type { DeliveryRunner } from '../domain/run-delivery.ts';

export const deliveryCommands = [publisherDeliveryRun] as const;
/** v2 carries many due jobs (the scheduler sends it); v1, one job, is what a scheduler of the previous release sent. */
export const dispatchCommands = [publisherJobDispatchBatch, publisherJobDispatch] as const;

/**
 * Both handlers are idempotent on the state they change (conditional UPDATEs), not on the message
 * id: a redelivered or duplicated command finds the work done and is acknowledged.
 */
export function deliveryCommandHandlers(deps: { runner: DeliveryRunner }): Handlers<typeof deliveryCommands> {
  return {
    'publisher.delivery_run.v1': (env) => deps.runner.run(env.payload.delivery_id),
  };
}

export function dispatchCommandHandlers(deps: DispatchDeps): Handlers<typeof dispatchCommands> {
  return {
    'publisher.job_dispatch.v2': async (env) => {
      await dispatchJobs(deps, env.payload.jobs.map((job) => job.job_id));
    },
    'publisher.job_dispatch.v1': async (env) => {
      await dispatchJobs(deps, [env.payload.job_id]);
    },
  };
}
