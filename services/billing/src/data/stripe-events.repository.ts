import { deleteInBatches } from '@svc/db';
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

  /** Forgets event ids recorded longer ago than the retention, in batches; returns how many. */
  async prune(retentionDays: number, batchSize: number, shouldStop: () => boolean): Promise<number> {
    return deleteInBatches(this.db, {
      table: 'stripe_events',
      where: 'processed_at < now() - make_interval(days => $1::int)',
      params: [retentionDays],
      batchSize,
      shouldStop,
    });
  }
}
