import { overdueScheduledJobIds } from '../data/scheduled-jobs.ts';
import { dispatchJobs, type DispatchDeps } from './dispatch-job.ts';

const BATCH = 100;

/**
 * The publisher's backstop for scheduled jobs: a job still `scheduled` `overdueMs` after its
 * time never got its dispatch (the schedule command was parked on its way to the scheduler, so the
 * scheduler has no row to rescue, or every re-sent dispatch was lost). It is dispatched here; the
 * dispatch is the same conditional `scheduled -> queued` as the scheduler's, so whichever comes
 * first wins and the other is a no-op. Up to 100 jobs a pass, dispatched in one transaction.
 * Returns how many it dispatched.
 */
export async function dispatchOverdueScheduled(deps: DispatchDeps, overdueMs: number): Promise<number> {
  const overdue = await overdueScheduledJobIds(deps.db, overdueMs, BATCH);
  return (await dispatchJobs(deps, overdue)).length;
}
