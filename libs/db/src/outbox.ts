import type { Envelope } from '@svc/contracts';
import type { RawSql } from './raw-sql.ts';

/**
 * Records messages in the caller's transaction. They reach RabbitMQ through the relay after commit,
 * so a crash between "saved" and "announced" loses nothing. Always pass the transaction client.
 */
export async function enqueueOutbox(tx: RawSql, envelopes: readonly Envelope[]): Promise<void> {
  if (envelopes.length === 0) return;
  // One statement for the whole batch (a job's fan-out, a sweeper's requeue) instead of one round
  // trip per message.
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox_messages (id, type, envelope)
     SELECT (e->>'message_id')::uuid, e->>'type', e FROM jsonb_array_elements($1::jsonb) AS e
     ON CONFLICT (id) DO NOTHING`,
    JSON.stringify(envelopes),
  );
  // Wakes relays listening on this database right after commit instead of at their next poll.
  await tx.$executeRawUnsafe("SELECT pg_notify('outbox_messages', '')");
}
