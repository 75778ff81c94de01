import type { PrismaClient } from '../generated/prisma/client.ts';

const MAX_REMEMBERED = 10_000;

/** Organizations are created on first sight of a valid token; known ids are remembered to skip the write. */
export class OrganizationsRepository {
  private readonly known = new Set<string>();

  constructor(private readonly db: PrismaClient) {}

  async ensure(orgId: string): Promise<void> {
    if (this.known.has(orgId)) return;
    try {
      await this.db.organization.upsert({ where: { id: orgId }, create: { id: orgId }, update: {} });
    } catch (error) {
      // Concurrent first requests of a new organization race to create it; the loser finds it made.
      if ((error as { code?: string }).code !== 'P2002') throw error;
    }
    if (this.known.size >= MAX_REMEMBERED) this.known.clear();
    this.known.add(orgId);
  }
}
