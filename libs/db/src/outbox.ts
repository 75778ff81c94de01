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

/** What hands committed rows to the relay: `OutboxRelay` (its claim's length, and the hand-off). */
export interface OutboxHandOff {
  readonly claimSeconds: number;
  handOff(envelopes: readonly Envelope[]): Promise<void>;
}

/**
 * Records messages in the caller's transaction already claimed for this process's relay, and returns
 * those recorded. Once the transaction has committed, pass them to `OutboxRelay.handOff`, which
 * publishes them at once: no notification and no claim between the commit and the publish, two
 * statements fewer for each transaction that sends messages. Should the process stop first, the
 * claim lapses after `claimSeconds` and any relay's poll publishes them, as it does the batch of a
 * relay that died.
 */
export async function enqueueOutboxClaimed(tx: RawSql, envelopes: readonly Envelope[], claimSeconds: number): Promise<Envelope[]> {
  if (envelopes.length === 0) return [];
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO outbox_messages (id, type, envelope, locked_until)
     SELECT (e->>'message_id')::uuid, e->>'type', e, now() + make_interval(secs => $2::float8) FROM jsonb_array_elements($1::jsonb) AS e
     ON CONFLICT (id) DO NOTHING
     RETURNING id::text AS id`,
    JSON.stringify(envelopes),
    claimSeconds,
  );
  // A message already recorded (the same id again) stays with whoever holds it.
  const recorded = new Set(rows.map((row) => row.id));
  return envelopes.filter((envelope) => recorded.has(envelope.message_id));
}
