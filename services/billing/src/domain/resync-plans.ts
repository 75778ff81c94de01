import type { Logger } from '@svc/logger';
import type { OrgPlansRepository } from '../data/org-plans.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { PlanName } from './plans.ts';
import { recomputePlan, type RecomputeDeps } from './recompute-plan.ts';

/**
 * At start: organizations whose announced limits no longer match the configured plans (an operator
 * changed PLAN_* settings) get their plan recomputed and announced again, so the enforcing services'
 * replicas follow the new limits without waiting for a Stripe event.
 */
export async function resyncPlans(deps: RecomputeDeps & { db: PrismaClient; orgPlans: OrgPlansRepository; logger: Logger; wake: () => void }): Promise<number> {
  let count = 0;
  for (const plan of ['free', 'pro'] as PlanName[]) {
    for (const orgId of await deps.orgPlans.stale(plan, deps.plans.limitsOf(plan))) {
      await deps.db.$transaction((tx) => recomputePlan(tx, deps, orgId, null));
      count += 1;
    }
  }
  if (count > 0) {
    deps.logger.info({ organizations: count }, 'plan limits changed by configuration; announced again');
    deps.wake();
  }
  return count;
}
