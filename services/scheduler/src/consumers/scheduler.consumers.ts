import {
  postQueued,
  schedulerJobSchedule,
  schedulerJobsQueued,
  schedulerJobUnschedule,
  type Handlers,
} from '@svc/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';

/** What scheduler.work receives: the publisher's commands, among them the hand-over confirmation. */
export const schedulerMessages = [
  schedulerJobSchedule,
  schedulerJobUnschedule,
  schedulerJobsQueued,
  postQueued,
] as const;

/**
 * post.queued was the confirmation before scheduler.jobs_queued.v1: no longer subscribed (each
 * accepted job cost this queue a copy), still handled for what the previous release sends.
 */
export const retiredSchedulerMessages = [postQueued] as const;

const HAND_OVER_SQL =
  "UPDATE scheduled_jobs SET status = 'handed_over' WHERE job_id = ANY($1::uuid[]) AND status IN ('fired', 'unconfirmed')";

/**
 * Idempotent by construction: scheduling inserts once per job (a redelivery changes nothing),
 * unscheduling only touches a row still waiting. Whether a job may still run is decided by the
 * publisher (its conditional `scheduled -> queued`); dropping the row here only saves the dispatch.
 */
export function schedulerCommandHandlers(
  db: PrismaClient,
  onScheduled: (runAt: Date) => void = () => undefined,
): Handlers<typeof schedulerMessages> {
  return {
    'scheduler.job_schedule.v1': async (env) => {
      const inserted = await db.$executeRawUnsafe(
        `INSERT INTO scheduled_jobs (job_id, org_id, run_at, status, request_id)
         VALUES ($1::uuid, $2, $3::timestamptz, 'scheduled', $4) ON CONFLICT (job_id) DO NOTHING`,
        env.payload.job_id,
        env.org_id ?? '',
        env.payload.run_at,
        env.request_id,
      );
      // Committed: the due-jobs loop may sleep past it otherwise (a job due sooner than its poll).
      if (inserted > 0) onScheduled(new Date(env.payload.run_at));
    },
    'scheduler.job_unschedule.v1': async (env) => {
      // An unschedule that overtakes its schedule leaves a canceled row, so the late insert is a no-op.
      // A cancel that won over a dispatch in flight ends the wait for its confirmation too.
      await db.$executeRawUnsafe(
        `INSERT INTO scheduled_jobs (job_id, org_id, run_at, status, request_id)
         VALUES ($1::uuid, $2, now(), 'canceled', $3)
         ON CONFLICT (job_id) DO UPDATE SET status = 'canceled' WHERE scheduled_jobs.status IN ('scheduled', 'fired', 'unconfirmed')`,
        env.payload.job_id,
        env.org_id ?? '',
        env.request_id,
      );
    },
    'scheduler.jobs_queued.v1': async (env) => {
      await db.$executeRawUnsafe(HAND_OVER_SQL, env.payload.job_ids);
    },
    'post.queued.v1': async (env) => {
      // Only a scheduled job can have a row waiting for its confirmation.
      if (env.payload.scheduled_at === null) return;
      await db.$executeRawUnsafe(HAND_OVER_SQL, [env.payload.job_id]);
    },
  };
}
