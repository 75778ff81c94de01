import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export type AccountRow = Prisma.AccountGetPayload<object>;
type Db = PrismaClient | Prisma.TransactionClient;

export interface AccountPageQuery {
  orgId: string;
  provider?: string | undefined;
  q?: string | undefined;
  limit: number;
  after?: { createdAt: Date; id: string } | undefined;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Every method takes the organization: accounts of other organizations do not exist for it. */
export class AccountsRepository {
  constructor(private readonly db: PrismaClient) {}

  private filter(query: Pick<AccountPageQuery, 'orgId' | 'provider' | 'q'>): Prisma.AccountWhereInput {
    const where: Prisma.AccountWhereInput = { orgId: query.orgId };
    if (query.provider !== undefined) where.provider = query.provider;
    if (query.q !== undefined) {
      const contains = escapeLike(query.q);
      where.OR = [
        { handle: { contains, mode: 'insensitive' } },
        { displayName: { contains, mode: 'insensitive' } },
        { platformAccountId: { contains, mode: 'insensitive' } },
      ];
    }
    return where;
  }

  /** Newest first, keyset-paginated on (created_at, id). Returns one extra row to tell if more follow. */
  async page(query: AccountPageQuery): Promise<{ rows: AccountRow[]; total: number }> {
    const where = this.filter(query);
    const keyset: Prisma.AccountWhereInput =
      query.after === undefined
        ? where
        : {
            AND: [
              where,
              {
                OR: [
                  { createdAt: { lt: query.after.createdAt } },
                  { createdAt: query.after.createdAt, id: { lt: query.after.id } },
                ],
              },
            ],
          };
    const [rows, total] = await Promise.all([
      this.db.account.findMany({
        where: keyset,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: query.limit + 1,
      }),
      this.db.account.count({ where }),
    ]);
    return { rows, total };
  }

  find(orgId: string, id: string, db: Db = this.db): Promise<AccountRow | null> {
    return db.account.findFirst({ where: { id, orgId } });
  }

  findMany(orgId: string, ids: string[]): Promise<AccountRow[]> {
    return this.db.account.findMany({ where: { orgId, id: { in: ids } } });
  }

  findByPlatformId(
    orgId: string,
    provider: string,
    platformAccountId: string,
    db: Db = this.db,
  ): Promise<AccountRow | null> {
    return db.account.findUnique({
      where: { orgId_provider_platformAccountId: { orgId, provider, platformAccountId } },
    });
  }

  /**
   * Takes the account's refresh lease when nobody holds it (one statement, no transaction kept open):
   * the row, 'busy' while another refresh holds an unexpired lease, or null when there is no such account.
   */
  async claimRefreshLease(
    orgId: string,
    id: string,
    owner: string,
    leaseMs: number,
  ): Promise<AccountRow | 'busy' | null> {
    const claimed = await this.db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE accounts SET refresh_lease_until = now() + make_interval(secs => $3::double precision / 1000), refresh_lease_owner = $4::uuid
        WHERE id = $1::uuid AND org_id = $2 AND (refresh_lease_until IS NULL OR refresh_lease_until < now())
        RETURNING id`,
      id,
      orgId,
      leaseMs,
      owner,
    );
    const row = await this.find(orgId, id);
    if (row === null) return null;
    return claimed.length === 1 && row.refreshLeaseOwner === owner ? row : 'busy';
  }

  /** Gives the lease back if this owner still holds it. */
  async releaseRefreshLease(id: string, owner: string): Promise<void> {
    await this.db.account.updateMany({
      where: { id, refreshLeaseOwner: owner },
      data: { refreshLeaseUntil: null, refreshLeaseOwner: null },
    });
  }

  create(data: Prisma.AccountUncheckedCreateInput, db: Db = this.db): Promise<AccountRow> {
    return db.account.create({ data });
  }

  update(id: string, data: Prisma.AccountUncheckedUpdateInput, db: Db = this.db): Promise<AccountRow> {
    return db.account.update({ where: { id }, data });
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const { count } = await this.db.account.deleteMany({ where: { id, orgId } });
    return count === 1;
  }

  async summary(orgId: string): Promise<{ connected_accounts: number; connected_networks: number }> {
    const groups = await this.db.account.groupBy({
      by: ['provider'],
      where: { orgId, health: { in: ['active', 'expiring'] } },
      _count: { _all: true },
    });
    return {
      connected_accounts: groups.reduce((sum, group) => sum + group._count._all, 0),
      connected_networks: groups.length,
    };
  }

  /** Accounts due for a background refresh (any organization: the refresher works for all). */
  dueForRefresh(before: Date, limit: number): Promise<AccountRow[]> {
    return this.db.account.findMany({
      where: { refreshToken: { not: null }, tokenExpiresAt: { lt: before }, health: { in: ['active', 'expiring'] } },
      orderBy: { tokenExpiresAt: 'asc' },
      take: limit,
    });
  }

  /** Accounts whose token will lapse within the window and that no refresh can save. */
  async markExpiring(before: Date): Promise<number> {
    const { count } = await this.db.account.updateMany({
      where: { refreshToken: null, tokenExpiresAt: { lt: before, gt: new Date() }, health: 'active' },
      data: { health: 'expiring' },
    });
    return count;
  }

  expiredWithoutRefresh(limit: number): Promise<AccountRow[]> {
    return this.db.account.findMany({
      where: { refreshToken: null, tokenExpiresAt: { lt: new Date() }, health: { in: ['active', 'expiring'] } },
      take: limit,
    });
  }

  all(batch: { afterId?: string; take: number }): Promise<AccountRow[]> {
    return this.db.account.findMany({
      ...(batch.afterId === undefined ? {} : { where: { id: { gt: batch.afterId } } }),
      orderBy: { id: 'asc' },
      take: batch.take,
    });
  }
}
