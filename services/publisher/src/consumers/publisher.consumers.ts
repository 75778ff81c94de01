import { publisherDeliveryRun, publisherJobDispatch, type Handlers } from '@svc/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { dispatchJob } from '../domain/dispatch-job.ts';
import type { DeliveryRunner } from '../domain/run-delivery.ts';

export const publisherCommands = [publisherDeliveryRun, publisherJobDispatch] as const;

/**
 * Both handlers are idempotent on the state they change (conditional UPDATEs), not on the message
 * id: a redelivered or duplicated command finds the work done and is acknowledged.
 */
export function publisherCommandHandlers(deps: { db: PrismaClient; runner: DeliveryRunner; wake: () => void }): Handlers<typeof publisherCommands> {
  return {
    'publisher.delivery_run.v1': (env) => deps.runner.run(env.payload.delivery_id),
    'publisher.job_dispatch.v1': async (env) => {
      await dispatchJob({ db: deps.db, wake: deps.wake }, env.payload.job_id);
    },
  };
}
