import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { JobsRepository } from '../src/data/jobs.repository.ts';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { cancelJob } from '../src/domain/cancel-job.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

describe('cancel waiting on a lock', () => {
  let database: TestDatabase;
  let db: PrismaClient;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-cancel-lock', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  it('waits for the organization\'s usage row as long as another transaction holds it', async () => {
    const id = randomUUID();
    await db.job.create({ data: { id, orgId: 'org_1', status: 'scheduled', text: 'x', accountIds: ['a1'], providers: ['x'], scheduledAt: new Date(Date.now() + 60_000) } });
    await db.$executeRawUnsafe("INSERT INTO post_usage (org_id, period, used) VALUES ('org_1', date_trunc('month', now() AT TIME ZONE 'UTC')::date, 1)");
    // Another transaction (an accept, or cancels queued before this one) holds the row for 6 s.
    const holder = db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("UPDATE post_usage SET used = used WHERE org_id = 'org_1'");
      await tx.$executeRawUnsafe('SELECT pg_sleep(6)');
    }, { timeout: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const canceled = await cancelJob({ db, jobs: new JobsRepository(db), limits: new PlanLimitsRepository(db, 1000), wake: () => undefined, transactionTimeoutMs: 10_000 }, 'org_1', id, null);
    await holder;
    expect(canceled.status).toBe('canceled');
  }, 30_000);
});
