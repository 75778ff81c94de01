import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface SessionRecord {
  idHash: string;
  userId: string;
  activeOrgId: string | null;
  expiresAt: Date;
}

/** Sessions, keyed by the SHA-256 of their token. */
export class SessionsRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(session: SessionRecord, db: Db = this.db): Promise<void> {
    await db.session.create({ data: session });
  }

  /** The session, unless it has expired. */
  async findLive(idHash: string, now: Date): Promise<SessionRecord | null> {
    const row = await this.db.session.findUnique({ where: { idHash } });
    if (row === null || row.expiresAt <= now) return null;
    return { idHash: row.idHash, userId: row.userId, activeOrgId: row.activeOrgId, expiresAt: row.expiresAt };
  }

  async setActiveOrg(idHash: string, orgId: string | null): Promise<void> {
    await this.db.session.update({ where: { idHash }, data: { activeOrgId: orgId } });
  }

  async delete(idHash: string): Promise<void> {
    await this.db.session.deleteMany({ where: { idHash } });
  }

  /** Ends every session of the user (sign-out everywhere); returns how many. */
  async deleteAllOf(userId: string): Promise<number> {
    return (await this.db.session.deleteMany({ where: { userId } })).count;
  }

  async deleteExpired(now: Date): Promise<number> {
    return (await this.db.session.deleteMany({ where: { expiresAt: { lte: now } } })).count;
  }
}
