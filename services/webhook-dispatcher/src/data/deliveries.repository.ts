import { deleteInBatches, type RawSql } from '@svc/db';
import { isUuid, SIGNING_PREVIOUS } from './endpoints.repository.ts';

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
  /** The earlier secrets still inside their overlap, newest first. */
  previous_secret_ciphers: string[];
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

/** What one batch of attempts means for one endpoint's failure clock (see recordMany). */
interface EndpointOutcome {
  /** The last attempt succeeded: the clock is cleared. */
  cleared: boolean;
  sawSuccess: boolean;
  /** A success came before the last failure: the streak starts again now. */
  restart: boolean;
  /** A 410 Gone: pause at once. */
  gone: boolean;
}

/** A `webhook_attempts` row (prisma/schema/webhooks.prisma owns the table). */
export interface AttemptRow {
  id: string;
  deliveryId: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: Date;
}

/**
 * A `webhook_deliveries` row with its latest attempts, oldest first (what the API lists and replays);
 * `attemptCount` counts them all.
 */
export interface DeliveryWithAttempts extends Omit<NewDelivery, 'leaseMs'> {
  status: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  attempts: AttemptRow[];
}

const DELIVERY_COLUMNS = `id::text AS id, org_id AS "orgId", endpoint_id::text AS "endpointId", event_key AS "eventKey",
  event_type AS "eventType", body, status, attempt_count AS "attemptCount", next_attempt_at AS "nextAttemptAt", manual,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Deliveries and attempts. The per-attempt statements (claim, record) are raw SQL, one round trip
 * each, because they run for every delivery (STYLE 16; bench/webhooks.bench.ts measures them).
 */
export class DeliveriesRepository {
  /**
   * `sql` runs the per-delivery statements, `db` the API's reads and the sweeper's (both plain pg pools
   * in production, see libs/db/src/pg-raw-sql.ts; separate so the API's reads never wait behind a burst).
   */
  constructor(
    private readonly db: RawSql,
    private readonly sql: RawSql = db,
  ) {}

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
                 e.status AS endpoint_status, e.payload_format, e.secret_cipher, ${SIGNING_PREVIOUS('e')} AS previous_secret_ciphers`,
      deliveryId,
      leaseMs / 1000,
      earlyToleranceMs / 1000,
    );
    return rows[0] ?? null;
  }

  /** One attempt: `recordMany` of one. Returns the endpoint's status when the attempt changed it. */
  async record(attempt: AttemptRecord): Promise<string | null> {
    const [status] = await this.recordMany([attempt]);
    return status ?? null;
  }

  /**
   * Records attempts, their deliveries' new states, and moves their endpoints' failure clocks, in one
   * statement however many there are (the dispatcher batches them: domain/attempt-recorder.ts). Per
   * endpoint, the attempts count in the order given, as if recorded one by one: a success clears
   * `failing_since`; a failure starts it (or restarts it after a success in the same batch), and
   * pauses the endpoint when it answered 410 or has been failing with no success for
   * `autoPauseAfterMs`. A healthy endpoint's row is not written at all. Answers, per attempt, its
   * endpoint's status when the statement changed the endpoint, else null. All attempts of one call
   * must share `autoPauseAfterMs`.
   */
  async recordMany(attempts: readonly AttemptRecord[]): Promise<(string | null)[]> {
    const first = attempts[0];
    if (first === undefined) return [];
    const deliveries = new Map<string, { status: string; next: string | null; count: number }>();
    const endpoints = new Map<string, EndpointOutcome>();
    for (const attempt of attempts) {
      const delivery = deliveries.get(attempt.deliveryId);
      const next = attempt.nextAttemptAt === null ? null : attempt.nextAttemptAt.toISOString();
      deliveries.set(attempt.deliveryId, { status: attempt.status, next, count: (delivery?.count ?? 0) + 1 });
      const endpoint = endpoints.get(attempt.endpointId) ?? {
        cleared: false,
        sawSuccess: false,
        restart: false,
        gone: false,
      };
      if (attempt.succeeded) {
        endpoint.cleared = true;
        endpoint.sawSuccess = true;
      } else {
        endpoint.cleared = false;
        endpoint.restart = endpoint.sawSuccess;
        endpoint.gone = endpoint.gone || attempt.gone;
      }
      endpoints.set(attempt.endpointId, endpoint);
    }
    const gap = `make_interval(secs => $15::float8)`;
    // "Kept failing" (docs/api-conventions.md, "Webhooks: retries and auto-pause"): the streak is
    // the failures since the last success with no quiet gap longer than the threshold between them;
    // a failure after such a gap starts a new streak.
    const pause = `e.status = 'active' AND (x.gone OR (NOT x.cleared AND NOT x.restart
                   AND e.failing_since <= now() - ${gap} AND e.last_failure_at >= now() - ${gap}))`;
    const rows = await this.sql.$queryRawUnsafe<{ id: string; status: string }[]>(
      `WITH attempt AS (
         INSERT INTO webhook_attempts (id, delivery_id, status_code, duration_ms, error, response_excerpt)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::int[], $5::text[], $6::text[])
       ), delivery AS (
         UPDATE webhook_deliveries d
            SET status = u.status, attempt_count = d.attempt_count + u.count, next_attempt_at = u.next_attempt_at, updated_at = now()
           FROM unnest($7::uuid[], $8::text[], $9::int[], $10::timestamptz[]) AS u(id, status, count, next_attempt_at)
          WHERE d.id = u.id
       ), endpoint AS (
         UPDATE webhook_endpoints e
            SET failing_since = CASE WHEN x.cleared THEN NULL
                                     WHEN x.restart OR e.failing_since IS NULL OR e.last_failure_at < now() - ${gap} THEN now()
                                     ELSE e.failing_since END,
                last_failure_at = CASE WHEN x.cleared THEN NULL ELSE now() END,
                status = CASE WHEN ${pause} THEN 'auto_paused' ELSE e.status END,
                paused_at = CASE WHEN ${pause} THEN now() ELSE e.paused_at END,
                updated_at = now()
           FROM unnest($11::uuid[], $12::boolean[], $13::boolean[], $14::boolean[]) AS x(id, cleared, restart, gone)
          WHERE e.id = x.id
            AND ((x.cleared AND e.failing_since IS NOT NULL) OR ((NOT x.cleared OR x.gone) AND e.status = 'active'))
          RETURNING e.id::text AS id, e.status
       )
       SELECT id, status FROM endpoint`,
      attempts.map((attempt) => attempt.attemptId),
      attempts.map((attempt) => attempt.deliveryId),
      attempts.map((attempt) => attempt.statusCode),
      attempts.map((attempt) => attempt.durationMs),
      attempts.map((attempt) => attempt.error),
      attempts.map((attempt) => attempt.excerpt),
      [...deliveries.keys()],
      [...deliveries.values()].map((delivery) => delivery.status),
      [...deliveries.values()].map((delivery) => delivery.count),
      [...deliveries.values()].map((delivery) => delivery.next),
      [...endpoints.keys()],
      [...endpoints.values()].map((endpoint) => endpoint.cleared),
      [...endpoints.values()].map((endpoint) => endpoint.restart),
      [...endpoints.values()].map((endpoint) => endpoint.gone),
      first.autoPauseAfterMs / 1000,
    );
    const changed = new Map(rows.map((row) => [row.id, row.status]));
    return attempts.map((attempt) => changed.get(attempt.endpointId) ?? null);
  }

  /** A pending delivery due now: one inserted leased by the fan-out that will go through a command instead. */
  async makeDue(deliveryId: string): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `UPDATE webhook_deliveries SET next_attempt_at = now(), updated_at = now() WHERE id = $1::uuid AND status = 'pending'`,
      deliveryId,
    );
  }

  /** A delivery that can no longer be sent (its endpoint is paused or disabled) ends without an attempt. */
  async abandon(deliveryId: string): Promise<void> {
    await this.db.$executeRawUnsafe(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = now() WHERE id = $1::uuid AND status = 'pending'`,
      deliveryId,
    );
  }

  /** Pending deliveries overdue by more than `graceMs`: their attempt command was lost. */
  overdue(graceMs: number, limit: number): Promise<{ id: string; endpoint_id: string; org_id: string }[]> {
    return this.db.$queryRawUnsafe<{ id: string; endpoint_id: string; org_id: string }[]>(
      `SELECT id::text AS id, endpoint_id::text AS endpoint_id, org_id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1::float8)
        ORDER BY next_attempt_at LIMIT $2`,
      graceMs / 1000,
      limit,
    );
  }

  /** Deletes settled deliveries (and their attempts, by cascade) created longer ago than the retention, in batches. */
  pruneSettled(retentionDays: number, batchSize: number, shouldStop: () => boolean): Promise<number> {
    return deleteInBatches(this.db, {
      table: 'webhook_deliveries',
      where: "created_at < now() - make_interval(days => $1::int) AND status <> 'pending'",
      params: [retentionDays],
      batchSize,
      shouldStop,
    });
  }

  async find(
    orgId: string,
    endpointId: string,
    deliveryId: string,
    attemptsListed: number,
  ): Promise<DeliveryWithAttempts | null> {
    if (!isUuid(deliveryId) || !isUuid(endpointId)) return null;
    const rows = await this.db.$queryRawUnsafe<Omit<DeliveryWithAttempts, 'attempts'>[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1::uuid AND endpoint_id = $2::uuid AND org_id = $3`,
      deliveryId,
      endpointId,
      orgId,
    );
    const [delivery] = await this.withAttempts(rows, attemptsListed);
    return delivery ?? null;
  }

  /** Newest first, keyset on (created_at, id), one extra row to tell whether more follow. */
  async page(
    orgId: string,
    endpointId: string,
    limit: number,
    attemptsListed: number,
    after?: { createdAt: Date; id: string },
  ): Promise<DeliveryWithAttempts[]> {
    const rows = await this.db.$queryRawUnsafe<Omit<DeliveryWithAttempts, 'attempts'>[]>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
        WHERE endpoint_id = $1::uuid AND org_id = $2
          AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $3`,
      endpointId,
      orgId,
      limit + 1,
      after?.createdAt ?? null,
      after?.id ?? null,
    );
    return this.withAttempts(rows, attemptsListed);
  }

  /**
   * The endpoint's deliveries, counted up to `bound` (an index-only scan of at most that many rows,
   * whatever the endpoint's volume): `exact` is false when there are more.
   */
  async countUpTo(orgId: string, endpointId: string, bound: number): Promise<{ count: number; exact: boolean }> {
    const [row] = await this.db.$queryRawUnsafe<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM (
         SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1::uuid AND org_id = $2 LIMIT $3
       ) AS bounded`,
      endpointId,
      orgId,
      bound + 1,
    );
    const count = row?.count ?? 0;
    return count > bound ? { count: bound, exact: false } : { count, exact: true };
  }

  /**
   * The latest `listed` attempts of each delivery (oldest first among them), in one statement for the
   * whole page: each delivery reads at most that many rows of the (delivery_id, created_at) index.
   */
  private async withAttempts(
    deliveries: Omit<DeliveryWithAttempts, 'attempts'>[],
    listed: number,
  ): Promise<DeliveryWithAttempts[]> {
    if (deliveries.length === 0) return [];
    const attempts = await this.db.$queryRawUnsafe<AttemptRow[]>(
      `SELECT a.id::text AS id, a.delivery_id::text AS "deliveryId", a.status_code AS "statusCode", a.duration_ms AS "durationMs", a.error,
              a.response_excerpt AS "responseExcerpt", a.created_at AS "createdAt"
         FROM unnest($1::uuid[]) AS d(id)
         CROSS JOIN LATERAL (
           SELECT * FROM webhook_attempts WHERE delivery_id = d.id ORDER BY created_at DESC, id DESC LIMIT $2
         ) AS a
        ORDER BY a.created_at, a.id`,
      deliveries.map((delivery) => delivery.id),
      listed,
    );
    const byDelivery = new Map<string, AttemptRow[]>(deliveries.map((delivery) => [delivery.id, []]));
    for (const attempt of attempts) byDelivery.get(attempt.deliveryId)?.push(attempt);
    return deliveries.map((delivery) => ({ ...delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
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
