import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, waitFor, type TestDatabase } from '@svc/testing';
import { JobsRepository } from '../src/data/jobs.repository.ts';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { cancelJob } from '../src/domain/cancel-job.ts';
import { dispatchJob } from '../src/domain/dispatch-job.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { outboxTypesOfJob } from './outbox-of-job.ts';

/**
 * Cancel and dispatch of one scheduled job are mirror conditional UPDATEs: run together, exactly one
 * wins, and the outbox holds exactly the messages of the winner (docs/reliability.md, "Cancel and fire race").
 */
describe('cancel vs dispatch race (publisher database)', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const wake = () => undefined;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-race', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  async function scheduledJob(orgId: string): Promise<string> {
    const id = randomUUID();
    await db.job.create({
      data: {
        id,
        orgId,
        status: 'scheduled',
        text: 'race',
        accountIds: ['a1', 'a2'],
        providers: ['x'],
        scheduledAt: new Date(Date.now() + 60_000),
        deliveries: {
          create: [
            { id: randomUUID(), orgId, accountId: 'a1', provider: 'x', position: 0, status: 'pending' },
            { id: randomUUID(), orgId, accountId: 'a2', provider: 'x', position: 1, status: 'pending' },
          ],
        },
      },
    });
    return id;
  }

  const outboxOf = (jobId: string) => outboxTypesOfJob(db, jobId);

  it('has exactly one winner in 200 races, with the outbox matching the winner', async () => {
    const jobs = new JobsRepository(db);
    const limits = new PlanLimitsRepository(db, 1000);
    const tally = { canceled: 0, dispatched: 0 };
    for (let i = 0; i < 200; i += 1) {
      const orgId = `org_${i % 3}`;
      const id = await scheduledJob(orgId);
      const cancel = cancelJob({ db, jobs, limits, wake, transactionTimeoutMs: 10_000 }, orgId, id, null).then(
        () => 'canceled' as const,
        (error: { code?: string }) => (error.code === 'conflict' ? 'conflict' : Promise.reject(error)),
      );
      const dispatch = dispatchJob({ db, wake }, id);
      let canceled: 'canceled' | 'conflict';
      let dispatched: boolean;
      if (i % 2 === 0) [canceled, dispatched] = await Promise.all([cancel, dispatch]);
      else [dispatched, canceled] = await Promise.all([dispatch, cancel]);
      expect((canceled === 'canceled') !== dispatched).toBe(true);
      const job = await db.job.findUnique({ where: { id }, include: { deliveries: true } });
      if (dispatched) {
        tally.dispatched += 1;
        expect(job?.status).toBe('queued');
        expect(await outboxOf(id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v2']);
      } else {
        tally.canceled += 1;
        expect(job?.status).toBe('canceled');
        expect(job?.deliveries.every((delivery) => delivery.status === 'canceled')).toBe(true);
        expect(await outboxOf(id)).toEqual(['scheduler.job_unschedule.v1']);
      }
      // A late second attempt of either side changes nothing.
      expect(await dispatchJob({ db, wake }, id)).toBe(false);
    }
    expect(tally.canceled + tally.dispatched).toBe(200);
    expect(tally.canceled).toBeGreaterThan(0);
    expect(tally.dispatched).toBeGreaterThan(0);
  }, 120_000);

  it('answers 404 for unknown, foreign and malformed ids', async () => {
    const jobs = new JobsRepository(db);
    const limits = new PlanLimitsRepository(db, 1000);
    const id = await scheduledJob('org_a');
    await expect(
      cancelJob({ db, jobs, limits, wake, transactionTimeoutMs: 10_000 }, 'org_b', id, null),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      cancelJob({ db, jobs, limits, wake, transactionTimeoutMs: 10_000 }, 'org_a', randomUUID(), null),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      cancelJob({ db, jobs, limits, wake, transactionTimeoutMs: 10_000 }, 'org_a', 'nope', null),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await db.job.findUnique({ where: { id } }))?.status).toBe('scheduled');
  });

  it("waits for the organization's usage row as long as another transaction holds it", async () => {
    const id = await scheduledJob('org_lock');
    await db.$executeRawUnsafe(
      "INSERT INTO post_usage (org_id, period, used) VALUES ('org_lock', date_trunc('month', now() AT TIME ZONE 'UTC')::date, 1)",
    );
    // Another transaction (an accept, or cancels queued before this one) holds the row for 6 s.
    const holder = db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe("UPDATE post_usage SET used = used WHERE org_id = 'org_lock'");
        await tx.$executeRawUnsafe('SELECT pg_sleep(6)');
      },
      { timeout: 20_000 },
    );
    await waitFor(
      async () =>
        (
          await db.$queryRawUnsafe<{ n: number }[]>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_sleep(6)' AND state = 'active'",
          )
        )[0]!.n > 0,
      { what: 'the other transaction to hold the usage row' },
    );
    const canceled = await cancelJob(
      {
        db,
        jobs: new JobsRepository(db),
        limits: new PlanLimitsRepository(db, 1000),
        wake,
        transactionTimeoutMs: 10_000,
      },
      'org_lock',
      id,
      null,
    );
    await holder;
    expect(canceled.status).toBe('canceled');
  }, 30_000);
});
