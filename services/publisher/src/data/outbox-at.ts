import type { Envelope } from '@svc/contracts';
import type { RawSql } from '@svc/db';
import { activeTraceCarrier } from '@svc/tracing';

/**
 * Writes a message the relay publishes only from `delayMs` on (the relay claims rows whose
 * `available_at <= now()`): how a delivery waits out a network's Retry-After without holding a
 * broker message or a worker. Database clock, like the relay's. The trace context of the work
 * writing it travels with it (enqueueOutbox in @svc/db).
 */
export async function enqueueOutboxAfter(tx: RawSql, envelope: Envelope, delayMs: number): Promise<void> {
  const trace = activeTraceCarrier();
  await tx.$executeRawUnsafe(
    `INSERT INTO outbox_messages (id, type, envelope, available_at, trace_context)
     VALUES ($1::uuid, $2, $3::jsonb, now() + make_interval(secs => $4::float8), $5::jsonb) ON CONFLICT (id) DO NOTHING`,
    envelope.message_id,
    envelope.type,
    JSON.stringify(envelope),
    Math.max(0, delayMs) / 1000,
    trace === null ? null : JSON.stringify(trace),
  );
}
