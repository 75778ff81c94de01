import path from 'node:path';
import { createLogger } from '@svc/logger';
import { createPrismaAdapter } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { OrgPlansRepository } from '../src/data/org-plans.repository.ts';
import { SubscriptionsRepository } from '../src/data/subscriptions.repository.ts';
import { Plans } from '../src/domain/plans.ts';
import { recomputePlan } from '../src/domain/recompute-plan.ts';
import { resyncPlans } from '../src/domain/resync-plans.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

/** The effective plan, its revision and its announcement (billing database only). */
describe('billing plans', () => {
  let database: TestDatabase;
  let db: PrismaClient;
  const logger = createLogger({ service: 'billing-test', level: 'silent' });
  const wake = () => undefined;
  const limits = (posts: number) => ({
    free: { connected_accounts: 2, posts_per_month: 3 },
    pro: { connected_accounts: 4, posts_per_month: posts },
  });

  beforeAll(async () => {
    database = await createTestDatabase({ prefix: 'billing-plans', serviceDir: path.resolve(__dirname, '..') });
    db = new PrismaClient({ adapter: createPrismaAdapter(database.connection) });
  }, 60_000);

  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });

  const announcements = async (orgId: string) =>
    (await db.outboxMessage.findMany({ where: { type: 'billing.plan_changed.v1' }, orderBy: { createdAt: 'asc' } }))
      .map(
        (row) =>
          row.envelope as {
            org_id: string;
            payload: { plan: string; revision: number; limits: { posts_per_month: number } };
          },
      )
      .filter((envelope) => envelope.org_id === orgId)
      .map((envelope) => envelope.payload);

  it('announces a change once, with growing revisions, and nothing when nothing changed', async () => {
    const deps = {
      plans: new Plans(limits(6), ['price_1']),
      subscriptions: new SubscriptionsRepository(db),
      orgPlans: new OrgPlansRepository(db),
    };
    const orgId = 'org_recompute';
    await deps.subscriptions.save({
      id: 'sub_r1',
      orgId,
      stripeCustomerId: 'cus_r1',
      status: 'active',
      priceId: 'price_1',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
      stripeCreatedAt: new Date(),
    });
    await db.$transaction((tx) => recomputePlan(tx, deps, orgId, null));
    await db.$transaction((tx) => recomputePlan(tx, deps, orgId, null));
    await deps.subscriptions.save({
      id: 'sub_r1',
      orgId,
      stripeCustomerId: 'cus_r1',
      status: 'canceled',
      priceId: 'price_1',
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
      stripeCreatedAt: new Date(),
    });
    await db.$transaction((tx) => recomputePlan(tx, deps, orgId, null));
    expect((await announcements(orgId)).map((p) => [p.revision, p.plan])).toEqual([
      [1, 'pro'],
      [2, 'free'],
    ]);
  });

  it('re-announces at start the organizations whose limits changed by configuration, and only those', async () => {
    const before = {
      plans: new Plans(limits(6), ['price_1']),
      subscriptions: new SubscriptionsRepository(db),
      orgPlans: new OrgPlansRepository(db),
    };
    for (const [orgId, status] of [
      ['org_pro', 'active'],
      ['org_free', 'canceled'],
    ] as const) {
      await before.subscriptions.save({
        id: `sub_${orgId}`,
        orgId,
        stripeCustomerId: `cus_${orgId}`,
        status,
        priceId: 'price_1',
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        stripeCreatedAt: new Date(),
      });
      await db.$transaction((tx) => recomputePlan(tx, before, orgId, null));
    }
    const after = { ...before, plans: new Plans(limits(60), ['price_1']), db, logger, wake, paidPrices: ['price_1'] };
    expect(await resyncPlans(after)).toBe(1);
    expect((await announcements('org_pro')).map((p) => [p.revision, p.limits.posts_per_month])).toEqual([
      [1, 6],
      [2, 60],
    ]);
    expect(await announcements('org_free')).toHaveLength(1);
    expect(await resyncPlans(after)).toBe(0);
  });

  it("re-announces at start the organizations whose paying subscription's price changed plan by configuration", async () => {
    const subscriptions = new SubscriptionsRepository(db);
    const orgPlans = new OrgPlansRepository(db);
    const before = { plans: new Plans(limits(6), ['price_old']), subscriptions, orgPlans };
    for (const [orgId, priceId] of [
      ['org_price_old', 'price_old'],
      ['org_price_new', 'price_new'],
    ] as const) {
      await subscriptions.save({
        id: `sub_${orgId}`,
        orgId,
        stripeCustomerId: `cus_${orgId}`,
        status: 'active',
        priceId,
        currentPeriodEnd: null,
        cancelAtPeriodEnd: false,
        stripeCreatedAt: new Date(),
      });
      await db.$transaction((tx) => recomputePlan(tx, before, orgId, null));
    }
    expect((await orgPlans.find('org_price_old'))?.plan).toBe('pro');
    expect((await orgPlans.find('org_price_new'))?.plan).toBe('free');
    // STRIPE_PRICE_ID moved to price_new without listing price_old in STRIPE_LEGACY_PRICE_IDS (the
    // earlier tests' organizations, on price_1, move too).
    const after = {
      ...before,
      plans: new Plans(limits(6), ['price_new']),
      db,
      logger,
      wake,
      paidPrices: ['price_new'],
    };
    expect(await resyncPlans(after)).toBeGreaterThanOrEqual(2);
    expect((await orgPlans.find('org_price_old'))?.plan).toBe('free');
    expect((await orgPlans.find('org_price_new'))?.plan).toBe('pro');
    expect(await resyncPlans(after)).toBe(0);
  });
});
