import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createEnvelope, publisherDeliveryRun } from '@svc/contracts';
import { BatchQueue, createPgRawSql, type PgRawSql } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { AcceptRepository, type NewJobRow, type StoreOutcome } from '../src/data/accept.repository.ts';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { createPrismaAdapter } from '@svc/db';

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
    const deliveries = Array.from({ length: accounts }, (_, position) => ({ id: randomUUID(), accountId: `acc_${position}`, provider: 'x', position }));
    return {
      id, orgId, status: 'queued', text: `post ${id}`, mediaUrls: [], mediaIds: [], options: {}, accountIds: deliveries.map((d) => d.accountId),
      providers: ['x'], scheduledAt: null, requestId: null, deliveries,
      envelopes: deliveries.map((delivery) => createEnvelope(publisherDeliveryRun, { job_id: id, delivery_id: delivery.id }, { orgId, requestId: null })),
    };
  }

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
      { kind: 'stored', createdAt: expect.any(Date) as Date },
      { kind: 'stored', createdAt: expect.any(Date) as Date },
      { kind: 'stored', createdAt: expect.any(Date) as Date },
      { kind: 'quota', plan: 'free', used: 3, limit: 3 },
    ]);
    expect(await stored('org_b')).toEqual({ jobs: 3, deliveries: 3, outbox: 3 });
    expect((await limits.usage('org_b')).used).toBe(3);
    expect((await limits.usage('org_c')).used).toBe(1);
  });

  it('uses the replicated plan limit, and a limit of zero allows nothing', async () => {
    await limits.apply('org_zero', { plan: 'free', postsPerMonth: 0, revision: 1 });
    await limits.apply('org_pro', { plan: 'pro', postsPerMonth: 5, revision: 1 });
    const outcomes = await repository.store([newJob('org_zero'), ...Array.from({ length: 6 }, () => newJob('org_pro'))]);
    expect(outcomes[0]).toEqual({ kind: 'quota', plan: 'free', used: 0, limit: 0 });
    expect(outcomes.slice(1).map((o) => o.kind)).toEqual(['stored', 'stored', 'stored', 'stored', 'stored', 'quota']);
    expect(outcomes[6]).toEqual({ kind: 'quota', plan: 'pro', used: 5, limit: 5 });
  });

  it('of batches racing for the last units, exactly as many jobs as units left are stored', async () => {
    await limits.apply('org_race', { plan: 'pro', postsPerMonth: 7, revision: 1 });
    await repository.store([newJob('org_race')]);
    const results = await Promise.all(Array.from({ length: 8 }, () => repository.store([newJob('org_race'), newJob('org_race')])));
    expect(results.flat().filter((o) => o.kind === 'stored')).toHaveLength(6);
    expect(await stored('org_race')).toMatchObject({ jobs: 7 });
    expect((await limits.usage('org_race')).used).toBe(7);
  });

  it('a job that breaks its batch fails alone: the others of the batch are stored, no unit is spent on it', async () => {
    const batcher = new BatchQueue((jobs: NewJobRow[]) => repository.store(jobs), { maxSize: 10, maxInFlight: 1, splitOnFailure: true });
    const taken = newJob('org_iso');
    await repository.store([taken]);
    // The same job id again (a racing retry of one idempotent request) violates the primary key.
    const duplicate = { ...newJob('org_iso'), id: taken.id };
    const results = await Promise.allSettled([batcher.add(newJob('org_iso')), batcher.add(duplicate), batcher.add(newJob('org_iso'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await stored('org_iso')).toMatchObject({ jobs: 3 });
    expect((await limits.usage('org_iso')).used).toBe(3);
  });
});
