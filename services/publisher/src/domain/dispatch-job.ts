import { createEnvelope, postQueued, schedulerJobsQueued, type Envelope } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import { isUuid } from '../data/jobs.repository.ts';
import { queueScheduledJobs } from '../data/scheduled-jobs.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { deliveryRunCommands } from './delivery-run-commands.ts';
import { carryQueuedEvents, type QueuedEvent } from './queued-events.ts';
import { toEventPayload } from './post-view.ts';

export interface DispatchDeps {
  db: PrismaClient;
  wake: () => void;
  /** DELIVERY_RUN_BATCHES (default true): a job's targets in v2 commands of up to 10, else one v1 each. */
  deliveryRunBatches?: boolean;
}

/**
 * Scheduled jobs are due: `scheduled -> queued` for every one still scheduled (the mirror of cancel),
 * then their post.queued (carried together, one message per organization) and delivery commands and
 * the scheduler's confirmation (one for the whole dispatch), all in one transaction whatever the
 * number of jobs (one transaction per job cannot queue 1,000 jobs due the same second within a
 * second).
 * A canceled or already dispatched job is skipped, so a redelivered or duplicated command is harmless.
 * Returns the ids dispatched by this call.
 *
 * When the batch fails (say one job whose event does not validate), each job is tried in its own
 * transaction, so one bad job never holds back the others; the first error is then rethrown for the
 * message to be retried (the jobs already queued are no-ops then) and parked in the end.
 */
export async function dispatchJobs(deps: DispatchDeps, jobIds: readonly string[]): Promise<string[]> {
  // A malformed id cannot name a job (and would fail the whole statement's uuid cast).
  const ids = [...new Set(jobIds.filter(isUuid))];
  if (ids.length === 0) return [];
  try {
    return await dispatchTogether(deps, ids);
  } catch (error) {
    if (ids.length === 1) throw error;
    const dispatched: string[] = [];
    let firstError: unknown;
    for (const id of ids) {
      try {
        dispatched.push(...(await dispatchTogether(deps, [id])));
      } catch (jobError) {
        firstError ??= jobError;
      }
    }
    if (firstError !== undefined) throw firstError;
    return dispatched;
  }
}

/** One job: true when this call moved it to queued. */
export async function dispatchJob(deps: DispatchDeps, jobId: string): Promise<boolean> {
  return (await dispatchJobs(deps, [jobId])).length === 1;
}

async function dispatchTogether(deps: DispatchDeps, ids: string[]): Promise<string[]> {
  const dispatched = await deps.db.$transaction(async (tx): Promise<string[] | undefined> => {
    // The jobs this call moved, and those a dispatch moved earlier (data/scheduled-jobs.ts).
    const rows = await queueScheduledJobs(tx, ids);
    if (rows.length === 0) return undefined;
    // The scheduler's confirmation: every job of the dispatch that has left `scheduled` but by a cancel.
    const confirmation = createEnvelope(
      schedulerJobsQueued,
      { job_ids: rows.map((row) => row.id) },
      { orgId: null, requestId: null },
    );
    const won = rows.filter((row) => row.moved);
    const jobs =
      won.length === 0
        ? []
        : await tx.job.findMany({ where: { id: { in: won.map((row) => row.id) } }, include: { deliveries: true } });
    const queued: QueuedEvent[] = [];
    const commands: Envelope[] = [];
    for (const job of jobs) {
      const context = { orgId: job.orgId, requestId: job.requestId };
      queued.push(createEnvelope(postQueued, toEventPayload(job), context));
      const pending = job.deliveries.filter((delivery) => delivery.status === 'pending').map((delivery) => delivery.id);
      commands.push(...deliveryRunCommands(job.id, pending, context, deps.deliveryRunBatches));
    }
    await enqueueOutbox(tx, [confirmation, ...carryQueuedEvents(queued), ...commands]);
    return jobs.map((job) => job.id);
  });
  // Undefined: nothing written. A confirmation alone (a re-sent dispatch) is worth a wake too.
  if (dispatched === undefined) return [];
  deps.wake();
  return dispatched;
}
