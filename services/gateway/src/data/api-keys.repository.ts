import type { RawSql } from '@svc/db';

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  hash: string;
  scope: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const UNIQUE_VIOLATION = '23505';

const COLUMNS =
  'id, org_id AS "orgId", name, prefix, hash, scope, created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"';

/** API keys, in SQL on the gateway's pg pool (no Prisma client in this process: compose.ts). */
export class ApiKeysRepository {
  constructor(private readonly db: RawSql) {}

  /** Returns false when the prefix is taken (astronomically rare), so the caller draws a new key. */
  async create(record: {
    id: string;
    orgId: string;
    name: string;
    prefix: string;
    hash: string;
    scope: string;
    createdBy: string;
  }): Promise<ApiKeyRecord | false> {
    try {
      const [created] = await this.db.$queryRawUnsafe<ApiKeyRecord[]>(
        `INSERT INTO api_keys (id, org_id, name, prefix, hash, scope, created_by) VALUES ($1::uuid, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
        record.id,
        record.orgId,
        record.name,
        record.prefix,
        record.hash,
        record.scope,
        record.createdBy,
      );
      return created!;
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  listActive(orgId: string): Promise<ApiKeyRecord[]> {
    return this.db.$queryRawUnsafe<ApiKeyRecord[]>(
      `SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
      orgId,
    );
  }

  async findByPrefix(prefix: string): Promise<ApiKeyRecord | null> {
    const [found] = await this.db.$queryRawUnsafe<ApiKeyRecord[]>(
      `SELECT ${COLUMNS} FROM api_keys WHERE prefix = $1`,
      prefix,
    );
    return found ?? null;
  }

  /** Revokes an active key of the organization; false when there is none (unknown, foreign or revoked). */
  async revoke(orgId: string, id: string): Promise<boolean> {
    const count = await this.db.$executeRawUnsafe(
      'UPDATE api_keys SET revoked_at = now() WHERE id = $1::uuid AND org_id = $2 AND revoked_at IS NULL',
      id,
      orgId,
    );
    return count === 1;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.$executeRawUnsafe('UPDATE api_keys SET last_used_at = $2 WHERE id = $1::uuid', id, at);
  }
}
