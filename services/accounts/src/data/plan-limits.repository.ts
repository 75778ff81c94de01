import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface PlanLimitAnnouncement {
  plan: string;
  connectedAccounts: number;
  revision: number;
}

/** The local replica of the organization's connected-accounts limit, and the count held against it. */
export class PlanLimitsRepository {
  constructor(
    private readonly db: PrismaClient,
    private readonly freeConnectedAccounts: number,
  ) {}

  /** Keeps the highest revision billing announced: a late or repeated announcement changes nothing. */
  async apply(orgId: string, announced: PlanLimitAnnouncement): Promise<boolean> {
    const changed = await this.db.$executeRawUnsafe(
      `INSERT INTO plan_limits (org_id, plan, connected_accounts, revision, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (org_id) DO UPDATE SET plan = EXCLUDED.plan, connected_accounts = EXCLUDED.connected_accounts, revision = EXCLUDED.revision, updated_at = now()
       WHERE plan_limits.revision < EXCLUDED.revision`,
      orgId,
      announced.plan,
      announced.connectedAccounts,
      announced.revision,
    );
    return changed === 1;
  }

  /**
   * Serializes the organization's new connections until the caller's transaction ends, so a count
   * taken after it cannot be overtaken by a concurrent connect of the same organization.
   */
  async lock(orgId: string, tx: Prisma.TransactionClient): Promise<void> {
    await tx.$executeRawUnsafe('SELECT pg_advisory_xact_lock(hashtext($1))', `accounts:plan-slot:${orgId}`);
  }

  /** Accounts stored for the organization (any health) and the limit enforced now, in one round trip. */
  async usage(orgId: string, db: Db = this.db): Promise<{ plan: string; used: number; limit: number }> {
    const [row] = await db.$queryRawUnsafe<{ plan: string | null; limit: number | null; used: bigint }[]>(
      `SELECT l.plan, l.connected_accounts AS limit, (SELECT count(*) FROM accounts WHERE org_id = $1) AS used
       FROM (SELECT 1) one LEFT JOIN plan_limits l ON l.org_id = $1`,
      orgId,
    );
    return { plan: row?.plan ?? 'free', used: Number(row?.used ?? 0), limit: row?.limit ?? this.freeConnectedAccounts };
  }
}
