import { billingPlanChanged, createEnvelope, type PayloadOf } from '@svc/contracts';
import { enqueueOutbox } from '@svc/db';
import type { OrgPlansRepository } from '../data/org-plans.repository.ts';
import type { SubscriptionsRepository } from '../data/subscriptions.repository.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import type { EffectivePlan, Plans } from './plans.ts';

export interface RecomputeDeps {
  plans: Plans;
  subscriptions: SubscriptionsRepository;
  orgPlans: OrgPlansRepository;
}

/**
 * Derives the organization's plan from its subscriptions and, when plan, status or limits changed,
 * stores it with the next revision and writes billing.plan_changed to the outbox in the caller's
 * transaction (so the change and its announcement commit together). Returns the effective plan.
 */
export async function recomputePlan(
  tx: Prisma.TransactionClient,
  deps: RecomputeDeps,
  orgId: string,
  requestId: string | null,
): Promise<EffectivePlan> {
  const effective = deps.plans.effective(await deps.subscriptions.list(orgId, tx));
  const current = await deps.orgPlans.find(orgId, tx);
  const unchanged =
    current !== null &&
    current.plan === effective.plan &&
    current.status === effective.status &&
    current.limits.connected_accounts === effective.limits.connected_accounts &&
    current.limits.posts_per_month === effective.limits.posts_per_month;
  if (unchanged) return effective;
  const revision = (current?.revision ?? 0) + 1;
  await deps.orgPlans.save(
    orgId,
    {
      plan: effective.plan,
      status: effective.status,
      subscriptionId: effective.subscription?.id ?? null,
      limits: effective.limits,
    },
    revision,
    tx,
  );
  await enqueueOutbox(tx, [
    createEnvelope(
      billingPlanChanged,
      {
        plan: effective.plan,
        status: effective.status as PayloadOf<typeof billingPlanChanged>['status'],
        limits: effective.limits,
        revision,
      },
      { orgId, requestId },
    ),
  ]);
  return effective;
}
