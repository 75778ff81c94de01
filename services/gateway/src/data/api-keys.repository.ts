import type { PrismaClient } from '../generated/prisma/client.ts';

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  prefix: string;
  hash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const UNIQUE_VIOLATION = 'P2002';

export class ApiKeysRepository {
  constructor(private readonly db: PrismaClient) {}

  /** Returns false when the prefix is taken (astronomically rare), so the caller draws a new key. */
  async create(record: { id: string; orgId: string; name: string; prefix: string; hash: string; createdBy: string }): Promise<ApiKeyRecord | false> {
    try {
      return await this.db.apiKey.create({ data: record });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  listActive(orgId: string): Promise<ApiKeyRecord[]> {
    return this.db.apiKey.findMany({ where: { orgId, revokedAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  }

  findByPrefix(prefix: string): Promise<ApiKeyRecord | null> {
    return this.db.apiKey.findUnique({ where: { prefix } });
  }

  /** Revokes an active key of the organization; false when there is none (unknown, foreign or revoked). */
  async revoke(orgId: string, id: string): Promise<boolean> {
    const { count } = await this.db.apiKey.updateMany({ where: { id, orgId, revokedAt: null }, data: { revokedAt: new Date() } });
    return count === 1;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }
}
