import type { ReplyOf, billingSubscriptionGet } from '@svc/contracts';
import type { SubscriptionsRepository } from '../data/subscriptions.repository.ts';
import type { Plans } from './plans.ts';

type SubscriptionView = ReplyOf<typeof billingSubscriptionGet>;

/** The organization's plan as billing derives it from its subscriptions (the free plan without any). */
export async function getSubscription(
  deps: { plans: Plans; subscriptions: SubscriptionsRepository },
  orgId: string,
): Promise<SubscriptionView> {
  const effective = deps.plans.effective(await deps.subscriptions.list(orgId));
  const subscription = effective.subscription;
  return {
    plan: effective.plan,
    status: effective.status as SubscriptionView['status'],
    subscribed_plan: subscription === null ? null : 'pro',
    current_period_end: subscription?.currentPeriodEnd?.toISOString() ?? null,
    cancel_at_period_end: subscription?.cancelAtPeriodEnd ?? false,
    limits: effective.limits,
  };
}
