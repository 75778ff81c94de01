import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { PlanLimitsRepository } from '../src/data/plan-limits.repository.ts';
import { takeAccountSlot } from '../src/domain/account-quota.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

/**
 * The protocol ConnectAccount.store follows for a new account (lock the organization, count against
 * the limit, insert), with a pause between the count and the insert so the transactions surely
 * overlap: the per-organization lock alone keeps the count honest. The end-to-end race through the
 * API is in test/billing/plan-limits.int.test.ts.
 */
describe('connected-accounts slot', () => {
  let database: TestDatabase;
  let db: PrismaClient;

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'accounts-slots', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection, { max: 12 }) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const connectNew = (limits: PlanLimitsRepository, orgId: string) =>
    db.$transaction(
      async (tx) => {
        await limits.lock(orgId, tx);
        await takeAccountSlot(limits, orgId, tx);
        await tx.$executeRawUnsafe('SELECT pg_sleep(0.05)');
        const id = randomUUID();
        await tx.account.create({
          data: {
            id,
            orgId,
            provider: 'x',
            platformAccountId: id,
            connectionType: 'byok',
            health: 'active',
            accessToken: 'v1.sealed',
          },
        });
      },
      { timeout: 30_000, maxWait: 30_000 },
    );

  it('of 10 new accounts racing for the last slot, exactly one is stored; the others get 402', async () => {
    const limits = new PlanLimitsRepository(db, 2);
    await connectNew(limits, 'org_race');
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        connectNew(limits, 'org_race').then(
          () => 'stored',
          (error: { code?: string }) => error.code ?? 'other',
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'stored')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'plan_limit_reached')).toHaveLength(9);
    expect(await limits.usage('org_race')).toMatchObject({ used: 2, limit: 2 });
  });

  it('follows the announced limit, ignoring an older revision', async () => {
    const limits = new PlanLimitsRepository(db, 2);
    expect(await limits.apply('org_pro', { plan: 'pro', connectedAccounts: 5, revision: 3 })).toBe(true);
    expect(await limits.apply('org_pro', { plan: 'free', connectedAccounts: 2, revision: 2 })).toBe(false);
    expect(await limits.usage('org_pro')).toEqual({ plan: 'pro', used: 0, limit: 5 });
  });
});
