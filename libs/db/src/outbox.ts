import type { Envelope } from '@svc/contracts';
import type { RawSql } from './raw-sql.ts';

/**
 * Records messages in the caller's transaction. They reach RabbitMQ through the relay after commit,
 * so a crash between "saved" and "announced" loses nothing. Always pass the transaction client.
 */
export async function enqueueOutbox(tx: RawSql, envelopes: readonly Envelope[]): Promise<void> {
  for (const envelope of envelopes) {
    await tx.$executeRawUnsafe(
      'INSERT INTO outbox_messages (id, type, envelope) VALUES ($1::uuid, $2, $3::jsonb) ON CONFLICT (id) DO NOTHING',
      envelope.message_id,
      envelope.type,
      JSON.stringify(envelope),
    );
  }
  // Wakes relays listening on this database right after commit instead of at their next poll.
  await tx.$executeRawUnsafe("SELECT pg_notify('outbox_messages', '')");
}
