import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

type Db = PrismaClient | Prisma.TransactionClient;

// The month of a usage row is the database clock's calendar month in UTC, in every statement.
const PERIOD = "(date_trunc('month', now() AT TIME ZONE 'UTC'))::date";

export interface PlanLimitAnnouncement {
  plan: string;
  postsPerMonth: number;
  revision: number;
}

/** The local replica of the organization's posts limit, and the monthly usage counted against it. */
export class PlanLimitsRepository {
  constructor(
    private readonly db: PrismaClient,
    private readonly freePostsPerMonth: number,
  ) {}

  /** Keeps the highest revision billing announced: a late or repeated announcement changes nothing. */
  async apply(orgId: string, announced: PlanLimitAnnouncement): Promise<boolean> {
    const changed = await this.db.$executeRawUnsafe(
      `INSERT INTO plan_limits (org_id, plan, posts_per_month, revision, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (org_id) DO UPDATE SET plan = EXCLUDED.plan, posts_per_month = EXCLUDED.posts_per_month, revision = EXCLUDED.revision, updated_at = now()
       WHERE plan_limits.revision < EXCLUDED.revision`,
      orgId,
      announced.plan,
      announced.postsPerMonth,
      announced.revision,
    );
    return changed === 1;
  }

  /**
   * Takes one post of this month's allowance, in the caller's transaction: one conditional upsert
   * (the limit read in the same statement), so of two transactions racing for the last unit the
   * second re-checks `used < limit` on the row the first committed and gets nothing. False: none left.
   */
  async take(orgId: string, tx: Prisma.TransactionClient): Promise<boolean> {
    const rows = await tx.$queryRawUnsafe<{ used: number }[]>(
      `WITH lim AS (SELECT COALESCE((SELECT posts_per_month FROM plan_limits WHERE org_id = $1), $2::int) AS value)
       INSERT INTO post_usage (org_id, period, used)
       SELECT $1, ${PERIOD}, 1 FROM lim WHERE lim.value > 0
       ON CONFLICT (org_id, period) DO UPDATE SET used = post_usage.used + 1 WHERE post_usage.used < (SELECT value FROM lim)
       RETURNING used`,
      orgId,
      this.freePostsPerMonth,
    );
    return rows.length === 1;
  }

  /** Gives back the unit of a job accepted in the month of `createdAt` (a scheduled job canceled). */
  async giveBack(orgId: string, jobId: string, tx: Prisma.TransactionClient): Promise<void> {
    await tx.$executeRawUnsafe(
      `UPDATE post_usage SET used = used - 1
       WHERE org_id = $1 AND used > 0 AND period = (SELECT (date_trunc('month', created_at AT TIME ZONE 'UTC'))::date FROM jobs WHERE id = $2::uuid)`,
      orgId,
      jobId,
    );
  }

  /** This month's usage and the limit enforced now (the free plan's when billing announced none). */
  async usage(
    orgId: string,
    db: Db = this.db,
  ): Promise<{ plan: string; used: number; limit: number; periodStart: Date }> {
    const [row] = await db.$queryRawUnsafe<
      { plan: string | null; limit: number | null; used: number | null; period: Date }[]
    >(
      `SELECT l.plan, l.posts_per_month AS limit, u.used, (${PERIOD})::timestamp AT TIME ZONE 'UTC' AS period
       FROM (SELECT 1) one
       LEFT JOIN plan_limits l ON l.org_id = $1
       LEFT JOIN post_usage u ON u.org_id = $1 AND u.period = ${PERIOD}`,
      orgId,
    );
    return {
      plan: row?.plan ?? 'free',
      used: row?.used ?? 0,
      limit: row?.limit ?? this.freePostsPerMonth,
      periodStart: row!.period,
    };
  }
}
