import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

/** The inbox of the Stripe webhook: one row per Stripe event id applied. */
export class StripeEventsRepository {
  constructor(private readonly db: PrismaClient) {}

  async seen(eventId: string, db: Db = this.db): Promise<boolean> {
    return (await db.stripeEvent.count({ where: { id: eventId } })) > 0;
  }

  /** Records the event in the caller's transaction; false when it was recorded before (a redelivery). */
  async record(event: { id: string; type: string; orgId: string | null; created: number }, db: Db): Promise<boolean> {
    const inserted = await db.$executeRawUnsafe(
      'INSERT INTO stripe_events (id, type, org_id, stripe_created_at) VALUES ($1, $2, $3, to_timestamp($4)) ON CONFLICT DO NOTHING',
      event.id,
      event.type,
      event.orgId,
      event.created,
    );
    return inserted === 1;
  }
}
