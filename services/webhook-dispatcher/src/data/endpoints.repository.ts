import type { RawSql, TransactionalClient } from '@svc/db';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/**
 * A `webhook_endpoints` row (prisma/schema/webhooks.prisma owns the table and its migrations). The
 * dispatcher reads it with plain SQL: no Prisma client runs in this process (docs/performance.md,
 * "Webhooks"), so this type is declared here and kept in step with the schema by the
 * repository tests (test/repositories.int.test.ts).
 */
export interface PreviousSecret {
  cipher: string;
  expires_at: string;
}

/** The ciphers of an endpoint's earlier secrets still signing, newest first (a text[] column expression). */
export const SIGNING_PREVIOUS = (alias: string) =>
  `ARRAY(SELECT p->>'cipher' FROM jsonb_array_elements(${alias}.previous_secrets) WITH ORDINALITY AS s(p, n)
          WHERE (p->>'expires_at')::timestamptz > now() ORDER BY n)`;

export interface EndpointRow {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  payloadFormat: string;
  status: string;
  secretCipher: string;
  /** Earlier secrets, newest first, each signing until its own end (`expires_at`, ISO 8601). */
  previousSecrets: PreviousSecret[];
  failingSince: Date | null;
  lastFailureAt: Date | null;
  pausedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What an update may change, and the column each field is stored in (the only names a SET is built from). */
const UPDATABLE = {
  url: 'url',
  events: 'events',
  status: 'status',
  failingSince: 'failing_since',
  lastFailureAt: 'last_failure_at',
  pausedAt: 'paused_at',
  secretCipher: 'secret_cipher',
  previousSecrets: 'previous_secrets',
} as const satisfies Partial<Record<keyof EndpointRow, string>>;

export type EndpointChanges = Partial<Pick<EndpointRow, keyof typeof UPDATABLE>>;

/** Every column of `EndpointRow`, named as its field (`events` is never NULL for the type's sake). */
const COLUMNS = `id::text AS id, org_id AS "orgId", url, COALESCE(events, '{}') AS events, payload_format AS "payloadFormat",
  status, secret_cipher AS "secretCipher", previous_secrets AS "previousSecrets", failing_since AS "failingSince",
  last_failure_at AS "lastFailureAt", paused_at AS "pausedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** An endpoint subscribed to an event, with what a first attempt needs (sent without a second read). */
export interface Subscriber {
  id: string;
  payload_format: string;
  url: string;
  status: string;
  secret_cipher: string;
  previous_secret_ciphers: string[];
}

/** An active endpoint of one of several organizations, with the events it subscribes to. */
export interface OrgSubscriber extends Subscriber {
  org_id: string;
  events: string[];
}

/** Webhook endpoints; every method takes the organization (a foreign id reads as missing). */
export class EndpointsRepository {
  /**
   * `db` runs the endpoint CRUD, `sql` the fan-out's subscriber lookup (both plain pg pools in
   * production, see libs/db/src/pg-raw-sql.ts; separate so the API's reads never wait behind a burst).
   */
  constructor(
    private readonly db: TransactionalClient,
    private readonly sql: RawSql = db,
  ) {}

  list(orgId: string): Promise<EndpointRow[]> {
    return this.db.$queryRawUnsafe<EndpointRow[]>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id`,
      orgId,
    );
  }

  async find(orgId: string, id: string): Promise<EndpointRow | null> {
    if (!isUuid(id)) return null;
    const rows = await this.db.$queryRawUnsafe<EndpointRow[]>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1::uuid AND org_id = $2`,
      id,
      orgId,
    );
    return rows[0] ?? null;
  }

  /**
   * Inserts the endpoint unless its organization has `maxPerOrg` already ('full'). The organization's
   * creates are serialized by a transaction-scoped advisory lock, taken before the count is read (its
   * own statement, so its snapshot sees every create committed before the lock was granted): two
   * concurrent creates cannot both pass the limit.
   */
  async create(
    row: { id: string; orgId: string; url: string; events: string[]; payloadFormat: string; secretCipher: string },
    maxPerOrg: number,
  ): Promise<EndpointRow | 'full'> {
    return this.db.$transaction(async (tx) => {
      await tx.$queryRawUnsafe(
        `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
        `webhook_endpoints:${row.orgId}`,
      );
      const [existing] = await tx.$queryRawUnsafe<{ count: number }[]>(
        'SELECT count(*)::int AS count FROM webhook_endpoints WHERE org_id = $1',
        row.orgId,
      );
      if ((existing?.count ?? 0) >= maxPerOrg) return 'full' as const;
      const rows = await tx.$queryRawUnsafe<EndpointRow[]>(
        `INSERT INTO webhook_endpoints (id, org_id, url, events, payload_format, secret_cipher, updated_at)
         VALUES ($1::uuid, $2, $3, $4::text[], $5, $6, now())
         RETURNING ${COLUMNS}`,
        row.id,
        row.orgId,
        row.url,
        row.events,
        row.payloadFormat,
        row.secretCipher,
      );
      const created = rows[0];
      if (created === undefined) throw new Error('INSERT ... RETURNING returned no row');
      return created;
    });
  }

  /** Every organization's endpoints in id order, `take` after `afterId`: for operator passes over all rows. */
  page(afterId: string | undefined, take: number): Promise<EndpointRow[]> {
    return this.db.$queryRawUnsafe<EndpointRow[]>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE ($1::uuid IS NULL OR id > $1::uuid) ORDER BY id LIMIT $2`,
      afterId ?? null,
      take,
    );
  }

  /**
   * Reads the endpoint locked (FOR UPDATE), lets `change` compute what to write from it, and writes it
   * in the same transaction: two concurrent rotations of one secret each see the other's result.
   * Null when the endpoint is not the organization's.
   */
  async updateLocked(
    orgId: string,
    id: string,
    change: (row: EndpointRow) => EndpointChanges,
  ): Promise<EndpointRow | null> {
    if (!isUuid(id)) return null;
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<EndpointRow[]>(
        `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1::uuid AND org_id = $2 FOR UPDATE`,
        id,
        orgId,
      );
      if (row === undefined) return null;
      return this.updateOn(tx, orgId, id, change(row));
    });
  }

  /** Updates only when the endpoint belongs to the organization (one statement); null otherwise. */
  async update(orgId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | null> {
    if (!isUuid(id)) return null;
    return this.updateOn(this.db, orgId, id, changes);
  }

  private async updateOn(on: RawSql, orgId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | null> {
    const fields = (Object.keys(UPDATABLE) as (keyof typeof UPDATABLE)[]).filter(
      (field) => changes[field] !== undefined,
    );
    // Column names come from UPDATABLE only; values are parameters ($3 onwards).
    const casts: Partial<Record<keyof typeof UPDATABLE, string>> = { events: '::text[]', previousSecrets: '::jsonb' };
    const sets = fields.map((field, index) => `${UPDATABLE[field]} = $${index + 3}${casts[field] ?? ''}`);
    const previous = fields.indexOf('previousSecrets');
    // The newest earlier secret also goes to the single-secret columns that dispatchers of the
    // previous release read, so they keep signing with it during a rolling update.
    if (previous >= 0) {
      sets.push(
        `previous_secret_cipher = $${previous + 3}::jsonb->0->>'cipher'`,
        `previous_secret_expires_at = ($${previous + 3}::jsonb->0->>'expires_at')::timestamptz`,
      );
    }
    const rows = await on.$queryRawUnsafe<EndpointRow[]>(
      `UPDATE webhook_endpoints SET ${[...sets, 'updated_at = now()'].join(', ')}
        WHERE id = $1::uuid AND org_id = $2
       RETURNING ${COLUMNS}`,
      id,
      orgId,
      ...fields.map((field) => (field === 'previousSecrets' ? JSON.stringify(changes[field]) : changes[field])),
    );
    return rows[0] ?? null;
  }

  /** Deletes the endpoint with its deliveries and their attempts (foreign keys cascade). */
  async delete(orgId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return (
      (await this.db.$executeRawUnsafe(
        'DELETE FROM webhook_endpoints WHERE id = $1::uuid AND org_id = $2',
        id,
        orgId,
      )) > 0
    );
  }

  /**
   * Active endpoints of these organizations, with their subscribed events: one indexed statement for a
   * whole batch of events (the fan-out matches each event to its endpoints in memory).
   */
  activeOf(orgIds: readonly string[]): Promise<OrgSubscriber[]> {
    if (orgIds.length === 0) return Promise.resolve([]);
    return this.sql.$queryRawUnsafe<OrgSubscriber[]>(
      `SELECT e.id::text AS id, e.org_id, e.events, e.payload_format, e.url, e.status, e.secret_cipher,
              ${SIGNING_PREVIOUS('e')} AS previous_secret_ciphers
         FROM webhook_endpoints e
        WHERE e.org_id = ANY($1::text[]) AND e.status = 'active'`,
      orgIds,
    );
  }
}
