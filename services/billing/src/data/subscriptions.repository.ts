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
      select: { id: true, status: true, stripeCreatedAt: true, currentPeriodEnd: true, cancelAtPeriodEnd: true },
    });
  }

  async orgOf(subscriptionId: string, db: Db = this.db): Promise<string | null> {
    return (await db.subscription.findUnique({ where: { id: subscriptionId }, select: { orgId: true } }))?.orgId ?? null;
  }
}
