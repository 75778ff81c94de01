import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createEnvelope, postQueued, publisherDeliveryRun } from '@svc/contracts';
import { BatchQueue, createPgRawSql, type PgRawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import {
  ACCEPT_SESSION_SETTINGS,
  AcceptRepository,
  type NewJobRow,
  type StoreOutcome,
} from '../src/data/accept.repository.ts';
import type { QueuedEvent } from '../src/domain/queued-events.ts';
import { outboxTypesOfJob } from './outbox-of-job.ts';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { createPrismaAdapter } from '@svc/db';
import { insertPendingBacklog, planningSql, tableReads } from './statement-plans.ts';

/** Group commit of accepts (publisher database only): one statement per batch, outcomes per job. */
describe('accept batches', () => {
  let database: TestDatabase;
  let sql: PgRawSql;
  let db: PrismaClient;
  let repository: AcceptRepository;
  let limits: PlanLimitsRepository;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-accept', serviceDir: path.resolve(__dirname, '..') });
    sql = createPgRawSql(database.connection, { max: 4, onIdleError: () => undefined });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
    repository = new AcceptRepository(sql, 3);
    limits = new PlanLimitsRepository(db, 3);
  }, 60_000);

  afterAll(async () => {
    await sql?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  function newJob(orgId: string, accounts = 1): NewJobRow {
    const id = randomUUID();
    const deliveries = Array.from({ length: accounts }, (_, position) => ({
      id: randomUUID(),
      accountId: `acc_${position}`,
      provider: 'x',
      position,
    }));
    return {
      id,
      orgId,
      status: 'queued',
      text: `post ${id}`,
      mediaUrls: [],
      mediaIds: [],
      options: {},
      accountIds: deliveries.map((d) => d.accountId),
      providers: ['x'],
      scheduledAt: null,
      requestId: null,
      firstComment: null,
      thread: null,
      deliveries,
      queued: null,
      envelopes: [],
      deliveryCommands: deliveries.map((delivery) =>
        createEnvelope(publisherDeliveryRun, { job_id: id, delivery_id: delivery.id }, { orgId, requestId: null }),
      ),
    };
  }

  /** A queued job with its post.queued event beside its delivery commands, as createJob writes it. */
  function announcedJob(orgId: string, accounts = 1): NewJobRow & { queued: QueuedEvent } {
    const job = newJob(orgId, accounts);
    const event = createEnvelope(
      postQueued,
      {
        id: job.id,
        job_id: job.id,
        status: 'queued',
        account_ids: job.accountIds,
        platforms: ['x'],
        text: job.text,
        scheduled_at: null,
        error_message: null,
        results: job.accountIds.map((accountId) => ({
          account_id: accountId,
          provider: 'x' as const,
          status: 'pending' as const,
          platform_post_id: null,
          platform_post_url: null,
          error_code: null,
          error_message: null,
        })),
      },
      { orgId, requestId: null },
    );
    return { ...job, queued: event };
  }

  /** A delivery of the organization waiting for a slot since a minute ago. */
  async function waitingDelivery(orgId: string): Promise<string> {
    const job = newJob(orgId);
    await repository.store([job]);
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET org_wait_since = now() - interval '1 minute' WHERE job_id = $1::uuid",
      job.id,
    );
    return job.deliveries[0]!.id;
  }

  const deliveriesOf = (jobId: string) =>
    sql.$queryRawUnsafe<{ id: string; waiting: boolean }[]>(
      'SELECT id::text AS id, org_wait_since IS NOT NULL AS waiting FROM deliveries WHERE job_id = $1::uuid ORDER BY position',
      jobId,
    );
  const outboxTypes = (jobId: string) => outboxTypesOfJob(sql, jobId);
  const carriersOf = (orgId: string) =>
    sql.$queryRawUnsafe<
      { envelope: { org_id: string; request_id: string | null; payload: { events: QueuedEvent[] } } }[]
    >(
      "SELECT envelope FROM outbox_messages WHERE type = 'publisher.posts_queued.v1' AND envelope->>'org_id' = $1 ORDER BY created_at, id",
      orgId,
    );

  const stored = async (orgId: string) => {
    const [row] = await sql.$queryRawUnsafe<{ jobs: number; deliveries: number; outbox: number }[]>(
      `SELECT (SELECT count(*)::int FROM jobs WHERE org_id = $1) AS jobs, (SELECT count(*)::int FROM deliveries WHERE org_id = $1) AS deliveries,
              (SELECT count(*)::int FROM outbox_messages WHERE envelope->>'org_id' = $1) AS outbox`,
      orgId,
    );
    return row;
  };

  it('stores a batch in one statement, with deliveries and outbox rows, counting one unit per job', async () => {
    const outcomes = await repository.store([newJob('org_a', 2), newJob('org_a', 1)]);
    expect(outcomes.map((o) => o.kind)).toEqual(['stored', 'stored']);
    expect(await stored('org_a')).toEqual({ jobs: 2, deliveries: 3, outbox: 3 });
    expect((await limits.usage('org_a')).used).toBe(2);
  });

  it('gives the units left to the first jobs of the batch and answers the rest with the usage, never storing them', async () => {
    await repository.store([newJob('org_b')]);
    const outcomes = await repository.store([newJob('org_b'), newJob('org_c'), newJob('org_b'), newJob('org_b')]);
    expect(outcomes).toEqual<StoreOutcome[]>([
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: false },
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: false },
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: false },
      { kind: 'quota', plan: 'free', used: 3, limit: 3 },
    ]);
    expect(await stored('org_b')).toEqual({ jobs: 3, deliveries: 3, outbox: 3 });
    expect((await limits.usage('org_b')).used).toBe(3);
    expect((await limits.usage('org_c')).used).toBe(1);
  });

  it("writes the post.queued events of the jobs stored together in one carrier per organization, as each was made, without the refused jobs'", async () => {
    const first = Array.from({ length: 4 }, () => announcedJob('org_q1'));
    const second = [announcedJob('org_q2', 2), announcedJob('org_q2')];
    await limits.apply('org_q0', { plan: 'free', postsPerMonth: 0, revision: 1 });
    const outcomes = await repository.store([
      first[0]!,
      second[0]!,
      first[1]!,
      first[2]!,
      announcedJob('org_q0'),
      second[1]!,
      first[3]!,
    ]);
    expect(outcomes.map((o) => o.kind)).toEqual(['stored', 'stored', 'stored', 'stored', 'quota', 'stored', 'quota']);
    // Three units a month: the fourth job of org_q1 was refused, and announces nothing.
    expect((await carriersOf('org_q1')).map((row) => row.envelope.payload.events)).toEqual([
      first.slice(0, 3).map((job) => job.queued),
    ]);
    expect((await carriersOf('org_q2')).map((row) => row.envelope.payload.events)).toEqual([
      second.map((job) => job.queued),
    ]);
    expect(await carriersOf('org_q0')).toEqual([]);
    expect(await outboxTypes(first[3]!.id)).toEqual([]);
    const [carrier] = await carriersOf('org_q1');
    expect(carrier?.envelope).toMatchObject({ org_id: 'org_q1', request_id: null });
  });

  it('uses the replicated plan limit, and a limit of zero allows nothing', async () => {
    await limits.apply('org_zero', { plan: 'free', postsPerMonth: 0, revision: 1 });
    await limits.apply('org_pro', { plan: 'pro', postsPerMonth: 5, revision: 1 });
    const outcomes = await repository.store([
      newJob('org_zero'),
      ...Array.from({ length: 6 }, () => newJob('org_pro')),
    ]);
    expect(outcomes[0]).toEqual({ kind: 'quota', plan: 'free', used: 0, limit: 0 });
    expect(outcomes.slice(1).map((o) => o.kind)).toEqual(['stored', 'stored', 'stored', 'stored', 'stored', 'quota']);
    expect(outcomes[6]).toEqual({ kind: 'quota', plan: 'pro', used: 5, limit: 5 });
  });

  it('of batches racing for the last units, exactly as many jobs as units left are stored', async () => {
    await limits.apply('org_race', { plan: 'pro', postsPerMonth: 7, revision: 1 });
    await repository.store([newJob('org_race')]);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => repository.store([newJob('org_race'), newJob('org_race')])),
    );
    expect(results.flat().filter((o) => o.kind === 'stored')).toHaveLength(6);
    expect(await stored('org_race')).toMatchObject({ jobs: 7 });
    expect((await limits.usage('org_race')).used).toBe(7);
  });

  it('a queued job of an organization whose deliveries wait for a slot joins the line: stored waiting, its post.queued written, no delivery command', async () => {
    await waitingDelivery('org_line');
    const inLine = announcedJob('org_line', 2);
    const free = announcedJob('org_no_line', 1);
    const outcomes = await repository.store([inLine, free]);
    expect(outcomes).toEqual([
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: true },
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: false },
    ]);
    expect((await deliveriesOf(inLine.id)).map((row) => row.waiting)).toEqual([true, true]);
    expect(await outboxTypes(inLine.id)).toEqual(['post.queued.v1']);
    // Another organization, with nobody waiting, gets its commands as before.
    expect((await deliveriesOf(free.id)).map((row) => row.waiting)).toEqual([false]);
    expect(await outboxTypes(free.id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v1']);
  });

  it('joins the line behind the deliveries waiting already, and not when they were all woken or a scheduled job waits for its time', async () => {
    const first = await waitingDelivery('org_order');
    const later = announcedJob('org_order', 1);
    await repository.store([later]);
    const [row] = await sql.$queryRawUnsafe<{ behind: boolean }[]>(
      'SELECT (SELECT org_wait_since FROM deliveries WHERE id = $1::uuid) < (SELECT org_wait_since FROM deliveries WHERE id = $2::uuid) AS behind',
      first,
      later.deliveries[0]!.id,
    );
    expect(row?.behind).toBe(true);

    // Woken, a delivery has left the line: the next job is claimed through its command as before.
    const woken = await waitingDelivery('org_woken');
    await sql.$executeRawUnsafe(
      "UPDATE deliveries SET org_woken_until = now() + interval '1 minute' WHERE id = $1::uuid",
      woken,
    );
    const afterWake = announcedJob('org_woken', 1);
    expect(await repository.store([afterWake])).toEqual([
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: false },
    ]);
    expect(await outboxTypes(afterWake.id)).toEqual(['post.queued.v1', 'publisher.delivery_run.v1']);

    // A scheduled job's deliveries wait for their time, not for a slot.
    await waitingDelivery('org_scheduled');
    const scheduled = {
      ...newJob('org_scheduled'),
      status: 'scheduled' as const,
      scheduledAt: new Date(Date.now() + 3_600_000),
      deliveryCommands: [],
    };
    expect(await repository.store([scheduled])).toEqual([
      { kind: 'stored', createdAt: expect.any(Date) as Date, waiting: false },
    ]);
    expect((await deliveriesOf(scheduled.id)).map((row) => row.waiting)).toEqual([false]);
  });

  it('looks for a line through the index of waiting deliveries, even in a plan made on empty tables', async () => {
    // Its own database: the plan in question is the one an accept connection makes (generic, kept
    // for its life) while the tables are empty, then used once they hold a backlog.
    const fresh = await createTestDatabase({
      prefix: 'publisher-accept-plan',
      serviceDir: path.resolve(__dirname, '..'),
    });
    const writer = createPgRawSql(fresh.connection, { max: 1, onIdleError: () => undefined });
    const planner = createPgRawSql(fresh.connection, {
      max: 1,
      onIdleError: () => undefined,
      settings: { plan_cache_mode: 'force_generic_plan', ...ACCEPT_SESSION_SETTINGS },
    });
    let reads: string[] = [];
    // From the newest entry back: the wakes leave their dead entries at the oldest end.
    let direction: string | undefined;
    const explaining = new AcceptRepository(
      planningSql(planner, (plan) => {
        reads = tableReads(plan, ['deliveries']);
        direction = /"Scan Direction":"(\w+)","Index Name":"deliveries_org_waiting_idx"/.exec(
          JSON.stringify(plan),
        )?.[1];
      }),
      3,
    );
    try {
      await explaining.store([newJob('org_plan', 2)]);
      expect(reads).toEqual(['deliveries deliveries_org_waiting_idx']);
      expect(direction).toBe('Backward');
      await insertPendingBacklog(writer, 'org_plan');
      await explaining.store([newJob('org_plan', 2)]);
      expect(reads).toEqual(['deliveries deliveries_org_waiting_idx']);
      expect(direction).toBe('Backward');
    } finally {
      await planner.end();
      await writer.end();
      await fresh.drop();
    }
  }, 60_000);

  it('a job that breaks its batch fails alone: the others of the batch are stored, no unit is spent on it', async () => {
    const batcher = new BatchQueue((jobs: NewJobRow[]) => repository.store(jobs), {
      maxSize: 10,
      maxInFlight: 1,
      splitOnFailure: true,
    });
    const taken = newJob('org_iso');
    await repository.store([taken]);
    // The same job id again (a racing retry of one idempotent request) violates the primary key.
    const duplicate = { ...newJob('org_iso'), id: taken.id };
    const results = await Promise.allSettled([
      batcher.add(newJob('org_iso')),
      batcher.add(duplicate),
      batcher.add(newJob('org_iso')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await stored('org_iso')).toMatchObject({ jobs: 3 });
    expect((await limits.usage('org_iso')).used).toBe(3);
  });
});
