import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

/** The posts-limit replica and the monthly counter (publisher database only). */
describe('publisher plan limits', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  let limits: PlanLimitsRepository;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'publisher-limits', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
    limits = new PlanLimitsRepository(db, 2);
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const take = (orgId: string) => db.$transaction((tx) => limits.take(orgId, tx));

  it('keeps the highest revision: a late or repeated announcement changes nothing', async () => {
    expect(await limits.apply('org_rev', { plan: 'pro', postsPerMonth: 10, revision: 2 })).toBe(true);
    expect(await limits.apply('org_rev', { plan: 'free', postsPerMonth: 2, revision: 1 })).toBe(false);
    expect(await limits.apply('org_rev', { plan: 'pro', postsPerMonth: 10, revision: 2 })).toBe(false);
    expect(await limits.usage('org_rev')).toMatchObject({ plan: 'pro', limit: 10, used: 0 });
  });

  it('uses the free limit without an announcement, and stops at it', async () => {
    expect([await take('org_free'), await take('org_free'), await take('org_free')]).toEqual([true, true, false]);
    expect(await limits.usage('org_free')).toMatchObject({ plan: 'free', used: 2, limit: 2 });
  });

  it('a limit of zero allows nothing', async () => {
    await limits.apply('org_zero', { plan: 'free', postsPerMonth: 0, revision: 1 });
    expect(await take('org_zero')).toBe(false);
    expect((await limits.usage('org_zero')).used).toBe(0);
  });

  it('a unit taken in a transaction that rolls back is not counted', async () => {
    await expect(
      db.$transaction(async (tx) => {
        await limits.take('org_rollback', tx);
        throw new Error('the job insert failed');
      }),
    ).rejects.toThrow('the job insert failed');
    expect((await limits.usage('org_rollback')).used).toBe(0);
  });

  it('of 20 transactions racing for the last unit, exactly one gets it', async () => {
    await take('org_race');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        db.$transaction(async (tx) => {
          const got = await limits.take('org_race', tx);
          await tx.$executeRawUnsafe('SELECT pg_sleep(0.05)');
          return got;
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await limits.usage('org_race')).used).toBe(2);
  });
});
