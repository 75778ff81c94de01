import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createEnvelope, publisherJobDispatch, publisherJobDispatchBatch } from '@svc/contracts';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { dispatchCommandHandlers } from '../src/consumers/publisher.consumers.ts';
import { JobsRepository } from '../src/data/jobs.repository.ts';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { cancelJob } from '../src/domain/cancel-job.ts';
import { dispatchJobs } from '../src/domain/dispatch-job.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { outboxTypesOfJob } from './outbox-of-job.ts';

/**
 * Due jobs arrive many to a command (publisher.job_dispatch.v2) and are queued in one
 * transaction. Each job must still be dispatched exactly once: across redelivery, overlapping
 * commands, racing cancels, and a bad job sharing the command.
 */
describe('dispatching due jobs in batches (publisher database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  let woken = 0;
  const deps = () => ({ db, wake: () => void (woken += 1) });
  const context = { redelivered: false, attempt: 1 };

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-dispatch', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  async function scheduledJob(
    options: { orgId?: string; accounts?: number; provider?: string; status?: string } = {},
  ): Promise<string> {
    const id = randomUUID();
    const orgId = options.orgId ?? 'org_1';
    const accounts = options.accounts ?? 2;
    await db.job.create({
      data: {
        id,
        orgId,
        status: options.status ?? 'scheduled',
        text: `batch ${id}`,
        accountIds: Array.from({ length: accounts }, (_, n) => `a${n}`),
        providers: [options.provider ?? 'x'],
        scheduledAt: new Date(Date.now() - 1000),
        deliveries: {
          create: Array.from({ length: accounts }, (_, n) => ({
            id: randomUUID(),
            orgId,
            accountId: `a${n}`,
            provider: options.provider ?? 'x',
            position: n,
            status: 'pending',
          })),
        },
      },
    });
    return id;
  }

  /** The outbox messages of a job, by type. */
  const outboxOf = (jobId: string) => outboxTypesOfJob(db, jobId);
  const statusOf = async (jobId: string) => (await db.job.findUniqueOrThrow({ where: { id: jobId } })).status;
  /** The deliveries the job's delivery_run commands name, in their order. */
  const commandedDeliveries = async (jobId: string) =>
    (
      await db.$queryRawUnsafe<{ id: string }[]>(
        "SELECT d.id FROM outbox_messages, jsonb_array_elements_text(envelope->'payload'->'delivery_ids') AS d(id) WHERE type = 'publisher.delivery_run.v2' AND envelope->'payload'->>'job_id' = $1",
        jobId,
      )
    ).map((row) => row.id);
  /** The job ids of each scheduler confirmation naming the job, oldest first (ids are UUIDv7). */
  const confirmationsOf = async (jobId: string) =>
    (
      await db.$queryRawUnsafe<{ ids: string[] }[]>(
        "SELECT envelope->'payload'->'job_ids' AS ids FROM outbox_messages WHERE type = 'scheduler.jobs_queued.v1' AND envelope->'payload'->'job_ids' ? $1 ORDER BY id",
        jobId,
      )
    ).map((row) => [...row.ids].sort());
  const deliveriesOf = async (jobId: string) =>
    (await db.delivery.findMany({ where: { jobId }, orderBy: { position: 'asc' } })).map((row) => row.id);

  it('queues every scheduled job of a command in one go, skips the rest, and changes nothing when redelivered', async () => {
    const due = await Promise.all(
      Array.from({ length: 30 }, (_, n) => scheduledJob({ orgId: `org_${n % 3}`, accounts: 1 + (n % 3) })),
    );
    const canceled = await scheduledJob({ status: 'canceled' });
    const alreadyQueued = await scheduledJob({ status: 'queued' });
    const unknown = randomUUID();
    const payload = {
      jobs: [...due, canceled, alreadyQueued, unknown].map((job_id) => ({
        job_id,
        scheduled_at: new Date().toISOString(),
      })),
    };
    const command = createEnvelope(publisherJobDispatchBatch, payload, { orgId: null, requestId: null });
    woken = 0;

    await dispatchCommandHandlers(deps())['publisher.job_dispatch.v2'](command, context);
    for (const id of due) {
      expect(await statusOf(id)).toBe('queued');
      // The job's deliveries, 1 to 3, in one command.
      expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
      expect(await commandedDeliveries(id)).toEqual(await deliveriesOf(id));
    }
    // Their post.queued events travel together: one carrier per organization, 10 events each.
    const carriers = await db.$queryRawUnsafe<{ org_id: string; events: number }[]>(
      "SELECT envelope->>'org_id' AS org_id, jsonb_array_length(envelope->'payload'->'events') AS events FROM outbox_messages WHERE type = 'publisher.posts_queued.v1' ORDER BY 1",
    );
    expect(carriers).toEqual([0, 1, 2].map((n) => ({ org_id: `org_${n}`, events: 10 })));
    expect(await statusOf(canceled)).toBe('canceled');
    expect(await outboxOf(canceled)).toEqual([]);
    expect(await outboxOf(alreadyQueued)).toEqual([]);
    // One confirmation for the scheduler: the jobs moved, and the one queued before (its
    // confirmation may be the one lost); not the canceled one nor the unknown id.
    const confirmed = [...due, alreadyQueued].sort();
    expect(await confirmationsOf(alreadyQueued)).toEqual([confirmed]);
    expect(woken).toBe(1);
    // The queued_at of each job is set, by the database clock.
    const queuedAt = await db.job.findMany({ where: { id: { in: due } }, select: { queuedAt: true } });
    expect(queuedAt.every((job) => job.queuedAt !== null)).toBe(true);

    // The same command again (a redelivery, or a re-send by the scheduler's rescue pass): nothing
    // queued again, the confirmation sent again.
    const outboxBefore = await db.outboxMessage.count();
    await dispatchCommandHandlers(deps())['publisher.job_dispatch.v2'](command, { redelivered: true, attempt: 2 });
    expect(await db.outboxMessage.count()).toBe(outboxBefore + 1);
    expect(await confirmationsOf(alreadyQueued)).toEqual([confirmed, confirmed]);
    for (const id of due) expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
    expect(woken).toBe(2);

    // A command of canceled and unknown jobs only writes nothing.
    await dispatchJobs(deps(), [canceled, unknown]);
    expect(await db.outboxMessage.count()).toBe(outboxBefore + 1);
  });

  it('still consumes the single-job v1 command a scheduler of the previous release sent (rolling deploy)', async () => {
    const id = await scheduledJob();
    const command = createEnvelope(
      publisherJobDispatch,
      { job_id: id, scheduled_at: new Date().toISOString() },
      { orgId: 'org_1', requestId: 'req' },
    );
    await dispatchCommandHandlers(deps())['publisher.job_dispatch.v1'](command, context);
    expect(await statusOf(id)).toBe('queued');
    expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
    await dispatchCommandHandlers(deps())['publisher.job_dispatch.v1'](command, { redelivered: true, attempt: 2 });
    expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
  });

  it('queues one v1 command per delivery when DELIVERY_RUN_BATCHES is off (the first rollout over an earlier release)', async () => {
    const id = await scheduledJob({ accounts: 3 });
    const command = createEnvelope(
      publisherJobDispatchBatch,
      { jobs: [{ job_id: id, scheduled_at: new Date().toISOString() }] },
      { orgId: 'org_1', requestId: null },
    );
    await dispatchCommandHandlers({ ...deps(), deliveryRunBatches: false })['publisher.job_dispatch.v2'](
      command,
      context,
    );
    expect(await statusOf(id)).toBe('queued');
    expect(await outboxOf(id)).toEqual([
      'post.queued.v1',
      'publisher.delivery_run.v1',
      'publisher.delivery_run.v1',
      'publisher.delivery_run.v1',
    ]);
  });

  it('dispatches each job once when overlapping commands run at the same time, without deadlocking', async () => {
    const jobs = await Promise.all(Array.from({ length: 60 }, () => scheduledJob({ accounts: 1 })));
    // Six commands, each a different shuffled half of the jobs, all at once.
    const shuffled = () => [...jobs].sort(() => Math.random() - 0.5).slice(0, 30);
    const subsets = [jobs.slice(0, 30), jobs.slice(30), ...Array.from({ length: 4 }, shuffled)];
    const results = await Promise.all(subsets.map((ids) => dispatchJobs(deps(), ids)));
    const dispatched = results.flat();
    expect(dispatched.sort()).toEqual([...jobs].sort());
    for (const id of jobs) expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
  });

  it('lets exactly one of cancel and a batch dispatch win for every job of the batch', async () => {
    const jobs = new JobsRepository(db);
    const limits = new PlanLimitsRepository(db, 1000);
    const wake = () => undefined;
    const tally = { canceled: 0, dispatched: 0 };
    for (let round = 0; round < 5; round += 1) {
      const ids = await Promise.all(Array.from({ length: 20 }, () => scheduledJob()));
      const cancels = ids.map((id) =>
        cancelJob({ db, jobs, limits, wake, transactionTimeoutMs: 10_000 }, 'org_1', id, null).then(
          () => true,
          (error: { code?: string }) => (error.code === 'conflict' ? false : Promise.reject(error)),
        ),
      );
      const [dispatched, ...canceled] = await Promise.all([dispatchJobs(deps(), ids), ...cancels]);
      for (const [n, id] of ids.entries()) {
        const wonDispatch = dispatched.includes(id);
        expect({ id, outcome: [wonDispatch, canceled[n]] }).toEqual({
          id,
          outcome: wonDispatch ? [true, false] : [false, true],
        });
        expect(await statusOf(id)).toBe(wonDispatch ? 'queued' : 'canceled');
        const outbox = await outboxOf(id);
        expect(outbox).toEqual(
          wonDispatch ? ['post.queued.v1', 'publisher.delivery_run.v2'] : ['scheduler.job_unschedule.v1'],
        );
        if (wonDispatch) tally.dispatched += 1;
        else tally.canceled += 1;
      }
    }
    expect(tally.canceled + tally.dispatched).toBe(100);
  }, 60_000);

  it('queues the good jobs of a command holding a bad one, and fails the command for the bad one alone', async () => {
    const good = await Promise.all([scheduledJob(), scheduledJob()]);
    // A provider outside the contract's enum: its post.queued event cannot validate.
    const bad = await scheduledJob({ provider: 'myspace' });
    await expect(dispatchJobs(deps(), [good[0]!, bad, good[1]!])).rejects.toThrow();
    for (const id of good) expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
    expect(await statusOf(bad)).toBe('scheduled');
    expect(await outboxOf(bad)).toEqual([]);
    // The retried command: the good jobs are no-ops, the bad one fails again (and ends parked).
    await expect(dispatchJobs(deps(), [good[0]!, bad, good[1]!])).rejects.toThrow();
    for (const id of good) expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
  });
});
