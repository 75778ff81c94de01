import type { RawSql } from '@svc/db';
import type { PrismaClient, WebhookEndpoint } from '../generated/prisma/client.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID.test(value);

export type EndpointRow = WebhookEndpoint;

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

/** Webhook endpoints; every method takes the organization (a foreign id reads as missing). */
export class EndpointsRepository {
  /** `sql` runs the per-event subscriber lookup (a plain pg pool in production: see libs/db/src/pg-raw-sql.ts). */
  constructor(private readonly db: PrismaClient, private readonly sql: RawSql = db) {}

  list(orgId: string): Promise<EndpointRow[]> {
    return this.db.webhookEndpoint.findMany({ where: { orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }

  find(orgId: string, id: string): Promise<EndpointRow | null> {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.db.webhookEndpoint.findFirst({ where: { id, orgId } });
  }

  create(row: { id: string; orgId: string; url: string; events: string[]; payloadFormat: string; secretCipher: string }): Promise<EndpointRow> {
    return this.db.webhookEndpoint.create({ data: row });
  }

  /** Updates only when the endpoint belongs to the organization; null otherwise. */
  async update(orgId: string, id: string, data: Partial<Pick<EndpointRow, 'url' | 'events' | 'status' | 'failingSince' | 'lastFailureAt' | 'pausedAt' | 'secretCipher' | 'previousSecretCipher' | 'previousSecretExpiresAt'>>): Promise<EndpointRow | null> {
    if (!isUuid(id)) return null;
    const { count } = await this.db.webhookEndpoint.updateMany({ where: { id, orgId }, data });
    return count === 0 ? null : this.db.webhookEndpoint.findUnique({ where: { id } });
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const { count } = await this.db.webhookEndpoint.deleteMany({ where: { id, orgId } });
    return count > 0;
  }

  /** Active endpoints of the organization subscribed to the event: one indexed statement per event. */
  subscribers(orgId: string, eventType: string): Promise<Subscriber[]> {
    return this.sql.$queryRawUnsafe<Subscriber[]>(
      `SELECT id::text AS id, payload_format, url, status, secret_cipher, previous_secret_cipher,
              (previous_secret_expires_at > now()) AS previous_valid
         FROM webhook_endpoints
        WHERE org_id = $1 AND status = 'active' AND $2 = ANY(events)`,
      orgId,
      eventType,
    );
  }
}
