import { publisherDeliveryRun, publisherJobDispatch, type Handlers } from '@svc/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { dispatchJob } from '../domain/dispatch-job.ts';
import type { DeliveryRunner } from '../domain/run-delivery.ts';

export const deliveryCommands = [publisherDeliveryRun] as const;
export const dispatchCommands = [publisherJobDispatch] as const;

/**
 * Both handlers are idempotent on the state they change (conditional UPDATEs), not on the message
 * id: a redelivered or duplicated command finds the work done and is acknowledged.
 */
export function deliveryCommandHandlers(deps: { runner: DeliveryRunner }): Handlers<typeof deliveryCommands> {
  return {
    'publisher.delivery_run.v1': (env) => deps.runner.run(env.payload.delivery_id),
  };
}

export function dispatchCommandHandlers(deps: { db: PrismaClient; wake: () => void }): Handlers<typeof dispatchCommands> {
  return {
    'publisher.job_dispatch.v1': async (env) => {
      await dispatchJob({ db: deps.db, wake: deps.wake }, env.payload.job_id);
    },
  };
}
