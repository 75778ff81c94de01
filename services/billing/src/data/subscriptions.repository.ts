import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { SubscriptionState } from '../domain/plans.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface SubscriptionRecord extends SubscriptionState {
  orgId: string;
  stripeCustomerId: string;
  priceId: string | null;
}

/** Copies of the organization's Stripe subscriptions, as last read from Stripe. */
export class SubscriptionsRepository {
  constructor(private readonly db: PrismaClient) {}

  async save(record: SubscriptionRecord, db: Db = this.db): Promise<void> {
    const data = {
      orgId: record.orgId,
      stripeCustomerId: record.stripeCustomerId,
      status: record.status,
      priceId: record.priceId,
      currentPeriodEnd: record.currentPeriodEnd,
      cancelAtPeriodEnd: record.cancelAtPeriodEnd,
      stripeCreatedAt: record.stripeCreatedAt,
    };
    await db.subscription.upsert({ where: { id: record.id }, create: { id: record.id, ...data }, update: data });
  }

  list(orgId: string, db: Db = this.db): Promise<SubscriptionState[]> {
    return db.subscription.findMany({
      where: { orgId },
      select: {
        id: true,
        status: true,
        priceId: true,
        stripeCreatedAt: true,
        currentPeriodEnd: true,
        cancelAtPeriodEnd: true,
      },
    });
  }

  /**
   * Organizations with a paying subscription whose announced plan disagrees with its price (an
   * operator changed STRIPE_PRICE_ID or STRIPE_LEGACY_PRICE_IDS): pro on a price no longer paid for,
   * or not pro on one that now is.
   */
  async orgsDisagreeingWithPrices(paidPrices: readonly string[], db: Db = this.db): Promise<string[]> {
    const rows = await db.$queryRawUnsafe<{ org_id: string }[]>(
      `SELECT DISTINCT s.org_id FROM subscriptions s LEFT JOIN org_plans p ON p.org_id = s.org_id
       WHERE s.status IN ('active', 'trialing', 'past_due')
         AND (coalesce(s.price_id = ANY($1::text[]), false)) <> (coalesce(p.plan, 'free') = 'pro')`,
      [...paidPrices],
    );
    return rows.map((row) => row.org_id);
  }

  async orgOf(subscriptionId: string, db: Db = this.db): Promise<string | null> {
    return (
      (await db.subscription.findUnique({ where: { id: subscriptionId }, select: { orgId: true } }))?.orgId ?? null
    );
  }
}
