import type { RawSql } from '@svc/db';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import { isUuid } from './endpoints.repository.ts';

export interface NewDelivery {
  id: string;
  orgId: string;
  endpointId: string;
  eventKey: string;
  eventType: string;
  body: string;
  manual: boolean;
  /** Inserted already claimed by this process for this long (its first attempt runs right away). */
  leaseMs?: number;
}

/** A delivery claimed for one attempt, with what signing and sending need. */
export interface ClaimedDelivery {
  id: string;
  org_id: string;
  event_type: string;
  body: string;
  attempt_count: number;
  manual: boolean;
  endpoint_id: string;
  url: string;
  endpoint_status: string;
  payload_format: string;
  secret_cipher: string;
  previous_secret_cipher: string | null;
  previous_valid: boolean | null;
}

export interface AttemptRecord {
  attemptId: string;
  deliveryId: string;
  endpointId: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  excerpt: string | null;
  /** The delivery's state after this attempt. */
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
  succeeded: boolean;
  /** 410 Gone: pause the endpoint at once. */
  gone: boolean;
  autoPauseAfterMs: number;
}

export type DeliveryWithAttempts = Prisma.WebhookDeliveryGetPayload<{ include: { attempts: true } }>;

/**
 * Deliveries and attempts. The per-attempt statements (claim, record) are raw SQL, one round trip
 * each, because they run for every delivery (STYLE 16; bench/webhooks.bench.ts measures them).
 */
export class DeliveriesRepository {
  /** `sql` runs the per-delivery statements (a plain pg pool in production: see libs/db/src/pg-raw-sql.ts). */
  constructor(private readonly db: PrismaClient, private readonly sql: RawSql = db) {}

  /** Inserts the deliveries that do not exist yet (by endpoint and event key); returns those inserted. */
  insertMany(rows: readonly NewDelivery[]): Promise<{ id: string; endpoint_id: string }[]> {
    if (rows.length === 0) return Promise.resolve([]);
    return this.sql.$queryRawUnsafe<{ id: string; endpoint_id: string }[]>(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_key, event_type, body, manual, status, next_attempt_at, updated_at)
       SELECT id, org_id, endpoint_id, event_key, event_type, body, manual, 'pending', now() + make_interval(secs => lease_ms / 1000.0), now()
         FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::float8[])
              AS t(id, org_id, endpoint_id, event_key, event_type, body, manual, lease_ms)
       ON CONFLICT (endpoint_id, event_key) DO NOTHING
       RETURNING id::text AS id, endpoint_id::text AS endpoint_id`,
      rows.map((row) => row.id),
      rows.map((row) => row.orgId),
      rows.map((row) => row.endpointId),
      rows.map((row) => row.eventKey),
      rows.map((row) => row.eventType),
      rows.map((row) => row.body),
      rows.map((row) => row.manual),
      rows.map((row) => row.leaseMs ?? 0),
    );
  }

  /**
   * Takes a due pending delivery for one attempt: its `next_attempt_at` moves a lease ahead, so a
   * duplicate command finds it not due and is dropped, and a worker that dies mid-attempt leaves it
   * to the sweeper once the lease is over. Null when it is not due, not pending, or unknown.
   */
  async claim(deliveryId: string, leaseMs: number, earlyToleranceMs: number): Promise<ClaimedDelivery | null> {
    if (!isUuid(deliveryId)) return null;
    const rows = await this.sql.$queryRawUnsafe<ClaimedDelivery[]>(
      `UPDATE webhook_deliveries d
          SET next_attempt_at = now() + make_interval(secs => $2::float8), updated_at = now()
         FROM webhook_endpoints e
        WHERE d.id = $1::uuid AND e.id = d.endpoint_id AND d.status = 'pending'
          AND d.next_attempt_at <= now() + make_interval(secs => $3::float8)
       RETURNING d.id::text AS id, d.org_id, d.event_type, d.body, d.attempt_count, d.manual, e.id::text AS endpoint_id, e.url,
                 e.status AS endpoint_status, e.payload_format, e.secret_cipher, e.previous_secret_cipher,
                 (e.previous_secret_expires_at > now()) AS previous_valid`,
      deliveryId,
      leaseMs / 1000,
      earlyToleranceMs / 1000,
    );
    return rows[0] ?? null;
  }

  /**
   * Records one attempt and the delivery's new state, and moves the endpoint's failure clock, in one
   * statement: a success clears `failing_since`; a failure starts it, and pauses the endpoint when it
   * answered 410 or has been failing with no success for `autoPauseAfterMs`. Returns the endpoint's status.
   */
  async record(attempt: AttemptRecord): Promise<string | null> {
    // "Kept failing" (decisions §5): the streak is the failures since the last success with no quiet
    // gap longer than the threshold between them; a failure after such a gap starts a new streak.
    const pause = `($10::boolean OR (failing_since <= now() - make_interval(secs => $11::float8)
                                     AND last_failure_at >= now() - make_interval(secs => $11::float8)))`;
    const endpointUpdate = attempt.succeeded
      ? `UPDATE webhook_endpoints SET failing_since = NULL, last_failure_at = NULL, updated_at = now()
          WHERE id = $9::uuid AND failing_since IS NOT NULL RETURNING status`
      : `UPDATE webhook_endpoints
            SET failing_since = CASE WHEN failing_since IS NULL OR last_failure_at < now() - make_interval(secs => $11::float8)
                                     THEN now() ELSE failing_since END,
                last_failure_at = now(), updated_at = now(),
                status = CASE WHEN ${pause} THEN 'auto_paused' ELSE status END,
                paused_at = CASE WHEN ${pause} THEN now() ELSE paused_at END
          WHERE id = $9::uuid AND status = 'active' RETURNING status`;
    const rows = await this.sql.$queryRawUnsafe<{ endpoint_status: string | null }[]>(
      `WITH attempt AS (
         INSERT INTO webhook_attempts (id, delivery_id, status_code, duration_ms, error, response_excerpt)
         VALUES ($1::uuid, $2::uuid, $3::int, $4::int, $5, $6)
       ), delivery AS (
         UPDATE webhook_deliveries SET status = $7, attempt_count = attempt_count + 1, next_attempt_at = $8::timestamptz, updated_at = now()
          WHERE id = $2::uuid
       ), endpoint AS (${endpointUpdate})
       SELECT (SELECT status FROM endpoint) AS endpoint_status`,
      attempt.attemptId,
      attempt.deliveryId,
      attempt.statusCode,
      attempt.durationMs,
      attempt.error,
      attempt.excerpt,
      attempt.status,
      attempt.nextAttemptAt === null ? null : attempt.nextAttemptAt.toISOString(),
      attempt.endpointId,
      ...(attempt.succeeded ? [] : [attempt.gone, attempt.autoPauseAfterMs / 1000]),
    );
    return rows[0]?.endpoint_status ?? null;
  }

  /** A delivery that can no longer be sent (its endpoint is paused or disabled) ends without an attempt. */
  async abandon(deliveryId: string): Promise<void> {
    await this.db.$executeRawUnsafe(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now() WHERE id = $1::uuid AND status = 'pending'`,
      deliveryId,
    );
  }

  /** Pending deliveries overdue by more than `graceMs`: their attempt command was lost. */
  overdue(graceMs: number, limit: number): Promise<{ id: string; endpoint_id: string }[]> {
    return this.db.$queryRawUnsafe<{ id: string; endpoint_id: string }[]>(
      `SELECT id::text AS id, endpoint_id::text AS endpoint_id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::float8)
        ORDER BY next_attempt_at LIMIT $2`,
      graceMs / 1000,
      limit,
    );
  }

  find(orgId: string, endpointId: string, deliveryId: string): Promise<DeliveryWithAttempts | null> {
    if (!isUuid(deliveryId) || !isUuid(endpointId)) return Promise.resolve(null);
    return this.db.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId, orgId }, include: { attempts: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } } });
  }

  /** Newest first, keyset on (created_at, id), one extra row to tell whether more follow. */
  page(orgId: string, endpointId: string, limit: number, after?: { createdAt: Date; id: string }): Promise<DeliveryWithAttempts[]> {
    const where: Prisma.WebhookDeliveryWhereInput = { orgId, endpointId };
    if (after !== undefined) where.OR = [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }];
    return this.db.webhookDelivery.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
      include: { attempts: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    });
  }

  count(orgId: string, endpointId: string): Promise<number> {
    return this.db.webhookDelivery.count({ where: { orgId, endpointId } });
  }

  /**
   * Makes a delivery due now for a replay: a finished one is tried once more (manual, not rescheduled);
   * a pending one keeps its schedule and is simply brought forward.
   */
  async replay(orgId: string, deliveryId: string): Promise<void> {
    await this.db.$executeRawUnsafe(
      `UPDATE webhook_deliveries SET manual = CASE WHEN status = 'pending' THEN manual ELSE true END,
              status = 'pending', next_attempt_at = now(), updated_at = now()
        WHERE id = $1::uuid AND org_id = $2`,
      deliveryId,
      orgId,
    );
  }
}
