import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createLogger } from '@svc/logger';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { schedulerCommandHandlers } from '../src/consumers/scheduler.consumers.ts';
import { DueJobsLoop } from '../src/domain/due-jobs-loop.ts';
import { MaintenanceLoop } from '../src/domain/maintenance-loop.ts';
import { pruneScheduledJobs } from '../src/domain/prune-scheduled-jobs.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

/** A dispatch that never reached the publisher is sent again; settled rows are pruned. */
describe('scheduler rescue and retention (scheduler database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const logger = createLogger({ service: 'scheduler-test', level: 'silent' });
  const envelope = <P>(type: string, payload: P) => ({
    message_id: randomUUID(),
    type,
    occurred_at: new Date().toISOString(),
    request_id: 'req',
    org_id: 'org_1',
    payload,
  });
  const context = { redelivered: false, attempt: 1 };
  const queued = (jobId: string, scheduledAt: string | null) =>
    envelope('post.queued.v1', {
      id: jobId,
      job_id: jobId,
      status: 'queued' as const,
      account_ids: ['a'],
      platforms: ['x' as const],
      text: 't',
      scheduled_at: scheduledAt,
      error_message: null,
      results: [],
    });

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'scheduler-rescue', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  /** Dispatch commands in the outbox that carry the job (a v2 command carries many). */
  const dispatchCount = async (jobId: string) =>
    Number(
      (
        await db.$queryRawUnsafe<{ n: bigint }[]>(
          `SELECT count(*) AS n FROM outbox_messages
          WHERE type = 'publisher.job_dispatch.v2' AND envelope->'payload'->'jobs' @> jsonb_build_array(jsonb_build_object('job_id', $1::text))`,
          jobId,
        )
      )[0]?.n ?? 0,
    );
  const statusOf = async (jobId: string) => (await db.scheduledJob.findUnique({ where: { jobId } }))?.status;
  /** Moves the last (re)dispatch of a job into the past, as if that much time had gone by without a confirmation. */
  const age = (jobId: string, seconds: number) =>
    db.$executeRawUnsafe(
      `UPDATE scheduled_jobs SET fired_at = fired_at - make_interval(secs => $2::float8) WHERE job_id = $1::uuid`,
      jobId,
      seconds,
    );
  const maintenance = (maxRedispatches = 8) =>
    new MaintenanceLoop({
      db,
      logger,
      intervalMs: 60_000,
      redispatchAfterMs: 60_000,
      maxRedispatches,
      retentionHours: 168,
      batchSize: 50,
      jobsPerDispatch: 20,
      wake: () => undefined,
    });

  async function fired(): Promise<string> {
    const jobId = randomUUID();
    const handlers = schedulerCommandHandlers(db);
    await handlers['scheduler.job_schedule.v1'](
      envelope('scheduler.job_schedule.v1', { job_id: jobId, run_at: new Date(Date.now() - 1000).toISOString() }),
      context,
    );
    await new DueJobsLoop({
      db,
      logger,
      pollMs: 10,
      batchSize: 500,
      jobsPerDispatch: 20,
      wake: () => undefined,
    }).fireDue();
    expect(await dispatchCount(jobId)).toBe(1);
    return jobId;
  }

  it('sends a dispatch again, with growing delays, until the publisher confirms it queued the job', async () => {
    const jobId = await fired();
    const pass = maintenance();
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(1); // not yet overdue

    await age(jobId, 61);
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(2);
    await age(jobId, 61);
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(2); // the second wait is twice as long
    await age(jobId, 60);
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(3);

    await schedulerCommandHandlers(db)['scheduler.jobs_queued.v1'](
      envelope('scheduler.jobs_queued.v1', { job_ids: [jobId] }),
      context,
    );
    expect(await statusOf(jobId)).toBe('handed_over');
    await age(jobId, 86_400);
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(3);
  });

  it('takes the confirmation of many jobs in one command, late ones too, and leaves canceled rows alone', async () => {
    const [late, waiting, canceled] = [await fired(), await fired(), await fired()];
    const handlers = schedulerCommandHandlers(db);
    const pass = maintenance(0);
    await age(late, 61);
    await pass.runOnce();
    expect(await statusOf(late)).toBe('unconfirmed');
    await handlers['scheduler.job_unschedule.v1'](
      envelope('scheduler.job_unschedule.v1', { job_id: canceled }),
      context,
    );
    await handlers['scheduler.jobs_queued.v1'](
      envelope('scheduler.jobs_queued.v1', { job_ids: [late, waiting, canceled, randomUUID()] }),
      context,
    );
    expect([await statusOf(late), await statusOf(waiting), await statusOf(canceled)]).toEqual([
      'handed_over',
      'handed_over',
      'canceled',
    ]);
  });

  it('still takes a post.queued of the previous release as the confirmation', async () => {
    const jobId = await fired();
    await schedulerCommandHandlers(db)['post.queued.v1'](queued(jobId, new Date().toISOString()), context);
    expect(await statusOf(jobId)).toBe('handed_over');
  });

  it('stops after the allowed re-sends and marks the job unconfirmed', async () => {
    const jobId = await fired();
    const pass = maintenance(1);
    await age(jobId, 61);
    await pass.runOnce();
    await age(jobId, 121);
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(2);
    expect(await statusOf(jobId)).toBe('unconfirmed');
    await age(jobId, 86_400);
    await pass.runOnce();
    expect(await dispatchCount(jobId)).toBe(2);
  });

  it('ends the wait when a cancel won over the dispatch in flight, and ignores immediate jobs', async () => {
    const jobId = await fired();
    const handlers = schedulerCommandHandlers(db);
    await handlers['scheduler.job_unschedule.v1'](envelope('scheduler.job_unschedule.v1', { job_id: jobId }), context);
    expect(await statusOf(jobId)).toBe('canceled');
    await age(jobId, 86_400);
    await maintenance().runOnce();
    expect(await dispatchCount(jobId)).toBe(1);

    const immediate = randomUUID();
    await handlers['post.queued.v1'](queued(immediate, null), context);
    expect(await statusOf(immediate)).toBeUndefined();
  });

  it('prunes settled rows past the retention batch after batch, and keeps the rest', async () => {
    await db.$executeRawUnsafe(
      `INSERT INTO scheduled_jobs (job_id, org_id, run_at, status, fired_at)
       SELECT gen_random_uuid(), 'org_prune', now() - interval '10 days', (ARRAY['handed_over', 'canceled', 'unconfirmed'])[1 + n % 3], now() - interval '10 days'
         FROM generate_series(1, 2500) AS n`,
    );
    const keep = { waiting: randomUUID(), unconfirmedFired: randomUUID(), recent: randomUUID() };
    await db.$executeRawUnsafe(
      `INSERT INTO scheduled_jobs (job_id, org_id, run_at, status) VALUES
         ($1::uuid, 'org_prune', now() - interval '10 days', 'scheduled'),
         ($2::uuid, 'org_prune', now() - interval '10 days', 'fired'),
         ($3::uuid, 'org_prune', now() - interval '1 day', 'handed_over')`,
      keep.waiting,
      keep.unconfirmedFired,
      keep.recent,
    );
    expect(await pruneScheduledJobs(db, { retentionHours: 168, batchSize: 1000 })).toBe(2500);
    expect((await db.scheduledJob.findMany({ where: { orgId: 'org_prune' } })).map((row) => row.jobId).sort()).toEqual(
      Object.values(keep).sort(),
    );
  });
});
