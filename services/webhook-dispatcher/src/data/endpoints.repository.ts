import type { RawSql } from '@svc/db';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

/**
 * A `webhook_endpoints` row (prisma/schema/webhooks.prisma owns the table and its migrations). The
 * dispatcher reads it with plain SQL: no Prisma client runs in this process (docs/performance.md,
 * Webhooks > Memory), so this type is declared here and kept in step with the schema by the
 * repository tests (test/repositories.int.test.ts).
 */
export interface EndpointRow {
  id: string;
  orgId: string;
  url: string;
  events: string[];
  payloadFormat: string;
  status: string;
  secretCipher: string;
  previousSecretCipher: string | null;
  previousSecretExpiresAt: Date | null;
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
  previousSecretCipher: 'previous_secret_cipher',
  previousSecretExpiresAt: 'previous_secret_expires_at',
} as const satisfies Partial<Record<keyof EndpointRow, string>>;

export type EndpointChanges = Partial<Pick<EndpointRow, keyof typeof UPDATABLE>>;

/** Every column of `EndpointRow`, named as its field (`events` is never NULL for the type's sake). */
const COLUMNS = `id::text AS id, org_id AS "orgId", url, COALESCE(events, '{}') AS events, payload_format AS "payloadFormat",
  status, secret_cipher AS "secretCipher", previous_secret_cipher AS "previousSecretCipher",
  previous_secret_expires_at AS "previousSecretExpiresAt", failing_since AS "failingSince",
  last_failure_at AS "lastFailureAt", paused_at AS "pausedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** An endpoint subscribed to an event, with what a first attempt needs (sent without a second read). */
export interface Subscriber {
  id: string;
  payload_format: string;
  url: string;
  status: string;
  secret_cipher: string;
  previous_secret_cipher: string | null;
  previous_valid: boolean | null;
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
  constructor(private readonly db: RawSql, private readonly sql: RawSql = db) {}

  list(orgId: string): Promise<EndpointRow[]> {
    return this.db.$queryRawUnsafe<EndpointRow[]>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE org_id = $1 ORDER BY created_at, id`, orgId);
  }

  async find(orgId: string, id: string): Promise<EndpointRow | null> {
    if (!isUuid(id)) return null;
    const rows = await this.db.$queryRawUnsafe<EndpointRow[]>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1::uuid AND org_id = $2`, id, orgId);
    return rows[0] ?? null;
  }

  async create(row: { id: string; orgId: string; url: string; events: string[]; payloadFormat: string; secretCipher: string }): Promise<EndpointRow> {
    const rows = await this.db.$queryRawUnsafe<EndpointRow[]>(
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
  }

  /** Updates only when the endpoint belongs to the organization (one statement); null otherwise. */
  async update(orgId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | null> {
    if (!isUuid(id)) return null;
    const fields = (Object.keys(UPDATABLE) as (keyof typeof UPDATABLE)[]).filter((field) => changes[field] !== undefined);
    // Column names come from UPDATABLE only; values are parameters ($3 onwards).
    const sets = fields.map((field, index) => `${UPDATABLE[field]} = $${index + 3}${field === 'events' ? '::text[]' : ''}`);
    const rows = await this.db.$queryRawUnsafe<EndpointRow[]>(
      `UPDATE webhook_endpoints SET ${[...sets, 'updated_at = now()'].join(', ')}
        WHERE id = $1::uuid AND org_id = $2
       RETURNING ${COLUMNS}`,
      id,
      orgId,
      ...fields.map((field) => changes[field]),
    );
    return rows[0] ?? null;
  }

  /** Deletes the endpoint with its deliveries and their attempts (foreign keys cascade). */
  async delete(orgId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return (await this.db.$executeRawUnsafe('DELETE FROM webhook_endpoints WHERE id = $1::uuid AND org_id = $2', id, orgId)) > 0;
  }

  /**
   * Active endpoints of these organizations, with their subscribed events: one indexed statement for a
   * whole batch of events (the fan-out matches each event to its endpoints in memory).
   */
  activeOf(orgIds: readonly string[]): Promise<OrgSubscriber[]> {
    if (orgIds.length === 0) return Promise.resolve([]);
    return this.sql.$queryRawUnsafe<OrgSubscriber[]>(
      `SELECT id::text AS id, org_id, events, payload_format, url, status, secret_cipher, previous_secret_cipher,
              (previous_secret_expires_at > now()) AS previous_valid
         FROM webhook_endpoints
        WHERE org_id = ANY($1::text[]) AND status = 'active'`,
      orgIds,
    );
  }
}
