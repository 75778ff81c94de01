import type { Envelope } from '@svc/contracts';
import { activeTraceCarrier } from '@svc/tracing';
import type { RawSql } from './raw-sql.ts';

/**
 * Records messages in the caller's transaction. They reach RabbitMQ through the relay after commit,
 * so a crash between "saved" and "announced" loses nothing. Always pass the transaction client.
 */
export async function enqueueOutbox(tx: RawSql, envelopes: readonly Envelope[]): Promise<void> {
  if (envelopes.length === 0) return;
  // One statement for the whole batch (a job's fan-out, a sweeper's requeue) instead of one round
  // trip per message. The trace context of the work writing them (NULL when untraced) lets the
  // relay's publish continue its trace.
  const trace = activeTraceCarrier();
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox_messages (id, type, envelope, trace_context)
     SELECT (e->>'message_id')::uuid, e->>'type', e, $2::jsonb FROM jsonb_array_elements($1::jsonb) AS e
     ON CONFLICT (id) DO NOTHING`,
    JSON.stringify(envelopes),
    trace === null ? null : JSON.stringify(trace),
  );
  // Wakes relays listening on this database right after commit instead of at their next poll.
  await tx.$executeRawUnsafe("SELECT pg_notify('outbox_messages', '')");
}
