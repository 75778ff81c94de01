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
  const overdue = await deps.db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM jobs
      WHERE status = 'scheduled' AND scheduled_at < now() - make_interval(secs => $1::float8)
      ORDER BY scheduled_at LIMIT $2`,
    overdueMs / 1000,
    BATCH,
  );
  return (await dispatchJobs(deps, overdue.map((row) => row.id))).length;
}
