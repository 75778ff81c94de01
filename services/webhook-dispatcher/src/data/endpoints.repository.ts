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

/** An active endpoint of one of several organizations, with the events it subscribes to. */
export interface OrgSubscriber extends Subscriber {
  org_id: string;
  events: string[];
}

/** Webhook endpoints; every method takes the organization (a foreign id reads as missing). */
export class EndpointsRepository {
  /** `sql` runs the fan-out's subscriber lookup (a plain pg pool in production: see libs/db/src/pg-raw-sql.ts). */
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
