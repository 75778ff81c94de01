import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/** The organization's Stripe customer id. */
export class CustomersRepository {
  constructor(private readonly db: PrismaClient) {}

  async find(orgId: string, db: Db = this.db): Promise<string | null> {
    return (await db.customer.findUnique({ where: { orgId } }))?.stripeCustomerId ?? null;
  }

  /** Serializes the work on one Stripe customer: held until the transaction `tx` ends. */
  async lock(stripeCustomerId: string, tx: Prisma.TransactionClient): Promise<void> {
    await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtext($1))', `billing:customer:${stripeCustomerId}`);
  }

  async orgOf(stripeCustomerId: string, db: Db = this.db): Promise<string | null> {
    return (await db.customer.findUnique({ where: { stripeCustomerId } }))?.orgId ?? null;
  }

  /** Keeps the first customer recorded for the organization and returns it (a racing request may have won). */
  async remember(orgId: string, stripeCustomerId: string, db: Db = this.db): Promise<string> {
    await db.$executeRawUnsafe(
      'INSERT INTO customers (org_id, stripe_customer_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      orgId,
      stripeCustomerId,
    );
    return (await this.find(orgId, db)) ?? stripeCustomerId;
  }
}
