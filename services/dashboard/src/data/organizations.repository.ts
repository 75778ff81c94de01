import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export type Role = 'owner' | 'member';

export interface MembershipView {
  orgId: string;
  orgName: string;
  role: Role;
}

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

/** Organizations and their members; every member query names the organization. */
export class OrganizationsRepository {
  constructor(private readonly db: PrismaClient) {}

  async create(org: { id: string; name: string }, db: Db = this.db): Promise<void> {
    await db.organization.create({ data: org });
  }

  /** Adds the member, or leaves an existing membership (and its role) as it is. */
  async addMember(orgId: string, userId: string, role: Role, db: Db = this.db): Promise<void> {
    await db.membership.upsert({
      where: { orgId_userId: { orgId, userId } },
      create: { orgId, userId, role },
      update: {},
    });
  }

  /** The organization's display name, or null when there is no such organization. */
  async nameOf(orgId: string): Promise<string | null> {
    const row = await this.db.organization.findUnique({ where: { id: orgId }, select: { name: true } });
    return row?.name ?? null;
  }

  async membershipsOf(userId: string): Promise<MembershipView[]> {
    const rows = await this.db.membership.findMany({
      where: { userId },
      include: { org: { select: { name: true } } },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((row) => ({ orgId: row.orgId, orgName: row.org.name, role: row.role as Role }));
  }

  async roleOf(orgId: string, userId: string): Promise<Role | null> {
    const row = await this.db.membership.findUnique({ where: { orgId_userId: { orgId, userId } } });
    return (row?.role as Role | undefined) ?? null;
  }

  async members(orgId: string): Promise<MemberView[]> {
    const rows = await this.db.membership.findMany({
      where: { orgId },
      include: { user: { select: { email: true } } },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((row) => ({
      userId: row.userId,
      email: row.user.email,
      role: row.role as Role,
      joinedAt: row.createdAt,
    }));
  }

  /** Removes the membership; false when there was none. */
  async removeMember(orgId: string, userId: string): Promise<boolean> {
    const { count } = await this.db.membership.deleteMany({ where: { orgId, userId } });
    return count > 0;
  }
}
