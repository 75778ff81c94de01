import { AppError } from '@svc/errors';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Counts one post (one accepted job, whatever its number of target accounts) against the monthly
 * limit inside the job's own transaction, or fails it with 402 naming the limit and the usage.
 */
export async function takePostQuota(limits: PlanLimitsRepository, orgId: string, tx: Prisma.TransactionClient): Promise<void> {
  if (await limits.take(orgId, tx)) return;
  const { plan, used, limit } = await limits.usage(orgId, tx);
  throw new AppError('plan_limit_reached', `The ${plan} plan allows ${limit} posts a month and this organization has used ${used}; upgrade the plan or wait for next month.`, {
    details: [{ path: '/body', message: `posts_per_month limit of ${limit} reached (${used} used)`, limit: 'posts_per_month', used, allowed: limit, plan }],
  });
}
