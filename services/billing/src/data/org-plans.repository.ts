import type { PlanLimitsType } from '@svc/contracts';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';
import type { PlanName } from '../domain/plans.ts';

type Db = PrismaClient | Prisma.TransactionClient;

export interface OrgPlanRow {
  plan: PlanName;
  status: string;
  subscriptionId: string | null;
  limits: PlanLimitsType;
  revision: number;
}

/** The plan last announced for each organization (absent: never announced, the free plan applies). */
export class OrgPlansRepository {
  constructor(private readonly db: PrismaClient) {}

  async find(orgId: string, db: Db = this.db): Promise<OrgPlanRow | null> {
    const row = await db.orgPlan.findUnique({ where: { orgId } });
    if (row === null) return null;
    return {
      plan: row.plan as PlanName,
      status: row.status,
      subscriptionId: row.subscriptionId,
      limits: { connected_accounts: row.connectedAccounts, posts_per_month: row.postsPerMonth },
      revision: row.revision,
    };
  }

  async save(orgId: string, plan: Omit<OrgPlanRow, 'revision'>, revision: number, db: Db): Promise<void> {
    const data = {
      plan: plan.plan,
      status: plan.status,
      subscriptionId: plan.subscriptionId,
      connectedAccounts: plan.limits.connected_accounts,
      postsPerMonth: plan.limits.posts_per_month,
      revision,
    };
    await db.orgPlan.upsert({ where: { orgId }, create: { orgId, ...data }, update: data });
  }

  /** Organizations whose announced limits differ from the configured ones (an operator changed a plan). */
  async stale(plan: PlanName, limits: PlanLimitsType): Promise<string[]> {
    const rows = await this.db.orgPlan.findMany({
      where: {
        plan,
        OR: [
          { connectedAccounts: { not: limits.connected_accounts } },
          { postsPerMonth: { not: limits.posts_per_month } },
        ],
      },
      select: { orgId: true },
    });
    return rows.map((row) => row.orgId);
  }
}
