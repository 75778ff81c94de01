import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { Role } from './organizations.repository.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface InviteRecord {
  id: string;
  tokenHash: string;
  orgId: string;
  role: Role;
  createdBy: string;
  expiresAt: Date;
}

/** Invitations to an organization, stored by the SHA-256 of their token. */
export class InvitesRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(invite: InviteRecord): Promise<void> {
    await this.db.invite.create({ data: invite });
  }

  /**
   * Marks the invite accepted by the user, once: the update only matches an unaccepted, unexpired
   * invite, so of two concurrent acceptances one wins. Returns its organization and role, or null.
   */
  async consume(
    tokenHash: string,
    userId: string,
    now: Date,
    db: Db = this.db,
  ): Promise<{ orgId: string; role: Role } | null> {
    const { count } = await db.invite.updateMany({
      where: { tokenHash, acceptedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now, acceptedBy: userId },
    });
    if (count === 0) return null;
    const invite = await db.invite.findUnique({ where: { tokenHash }, select: { orgId: true, role: true } });
    return invite === null ? null : { orgId: invite.orgId, role: invite.role as Role };
  }
}
