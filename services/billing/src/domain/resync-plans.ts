import type { Logger } from '@svc/logger';
import type { OrgPlansRepository } from '../data/org-plans.repository.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { PlanName } from './plans.ts';
import { recomputePlan, type RecomputeDeps } from './recompute-plan.ts';

/**
 * At start: organizations whose announced plan no longer matches the configuration get their plan
 * recomputed and announced again, so the enforcing services' replicas follow without waiting for a
 * Stripe event. Either an operator changed PLAN_* limits, or the paid prices (STRIPE_PRICE_ID,
 * STRIPE_LEGACY_PRICE_IDS) so that a paying subscription's price now says another plan.
 */
export async function resyncPlans(
  deps: RecomputeDeps & {
    db: PrismaClient;
    orgPlans: OrgPlansRepository;
    logger: Logger;
    wake: () => void;
    paidPrices: readonly string[];
  },
): Promise<number> {
  const stale = new Set<string>();
  for (const plan of ['free', 'pro'] as PlanName[]) {
    for (const orgId of await deps.orgPlans.stale(plan, deps.plans.limitsOf(plan))) stale.add(orgId);
  }
  for (const orgId of await deps.subscriptions.orgsDisagreeingWithPrices(deps.paidPrices)) stale.add(orgId);
  for (const orgId of stale) await deps.db.$transaction((tx) => recomputePlan(tx, deps, orgId, null));
  if (stale.size > 0) {
    deps.logger.info({ organizations: stale.size }, 'plans changed by configuration; recomputed and announced again');
    deps.wake();
  }
  return stale.size;
}
