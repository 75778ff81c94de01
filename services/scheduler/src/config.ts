import { Type, type Static } from '@sinclair/typebox';
import { COMMON_SECRET_URLS, commonConfigSchema, loadConfig, productionSecretProblems } from '@svc/config';
import { JOB_DISPATCH_MAX_JOBS } from '@svc/contracts';

/** Every setting of the scheduler service; the only module that reads the environment. */
export const configSchema = Type.Object({
  ...commonConfigSchema,
  /** Port of the `/livez`, `/readyz` and `/metrics` endpoints for operators. */
  PROBE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 9103 }),
  /**
   * The due-jobs loop's longest sleep. It wakes earlier when the next job falls due and when this
   * process schedules one due sooner, so this bounds only how late it sees a job scheduled through
   * another replica that stopped before its time.
   */
  SCHEDULER_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
  /** Due jobs claimed per pass (one transaction); a backlog drains pass after pass without waiting. */
  SCHEDULER_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 10_000, default: 200 }),
  /**
   * Due jobs handed to the publisher per dispatch command (publisher.job_dispatch.v2): it queues each
   * command's jobs in one transaction, so a burst costs a few transactions instead of one per job.
   */
  SCHEDULER_JOBS_PER_DISPATCH: Type.Integer({ minimum: 1, maximum: JOB_DISPATCH_MAX_JOBS, default: 100 }),
  /** How often the rescue and prune pass runs. */
  SCHEDULER_MAINTENANCE_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 30_000 }),
  /** A dispatch the publisher has not confirmed (scheduler.jobs_queued.v1) is sent again after this, then twice as long each time. */
  SCHEDULER_REDISPATCH_AFTER_MS: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 60_000 }),
  /** Re-sends before a job is logged as never confirmed (8 at the defaults: about 4 h). */
  SCHEDULER_MAX_REDISPATCHES: Type.Integer({ minimum: 0, maximum: 20, default: 8 }),
  /** Settled rows (handed over, canceled, unconfirmed) are deleted this long after their due time. */
  SCHEDULER_RETENTION_HOURS: Type.Integer({ minimum: 1, maximum: 8760, default: 168 }),
});

export type Config = Static<typeof configSchema>;

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(configSchema, env, (config) => productionSecretProblems(config, COMMON_SECRET_URLS));
}
