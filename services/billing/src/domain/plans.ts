import type { PlanLimitsType } from '@svc/contracts';

export type PlanName = 'free' | 'pro';

/** Statuses that keep the paid plan's limits: Stripe is still collecting (past_due) or nothing is owed yet. */
const PAYING = new Set(['active', 'trialing', 'past_due']);

export interface SubscriptionState {
  id: string;
  status: string;
  stripeCreatedAt: Date;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

export interface EffectivePlan {
  plan: PlanName;
  /** The deciding subscription's status, `none` when the organization never subscribed. */
  status: string;
  subscription: SubscriptionState | null;
  limits: PlanLimitsType;
}

export function isPaying(status: string): boolean {
  return PAYING.has(status);
}

/**
 * The plans and what each allows. There is one paid plan: every Stripe subscription is for it
 * (checkout sells STRIPE_PRICE_ID), so its status alone decides between its limits and the free ones.
 */
export class Plans {
  constructor(private readonly limits: Record<PlanName, PlanLimitsType>) {}

  limitsOf(plan: PlanName): PlanLimitsType {
    return this.limits[plan];
  }

  /**
   * An organization's plan from all its subscriptions: the newest paying one wins; with none paying,
   * the newest one says why the free plan applies (canceled, unpaid...). Order of arrival never
   * matters, only the subscriptions' own state.
   */
  effective(subscriptions: readonly SubscriptionState[]): EffectivePlan {
    const newestFirst = [...subscriptions].sort((a, b) => b.stripeCreatedAt.getTime() - a.stripeCreatedAt.getTime() || b.id.localeCompare(a.id));
    const paying = newestFirst.find((subscription) => isPaying(subscription.status));
    const deciding = paying ?? newestFirst[0] ?? null;
    const plan: PlanName = paying === undefined ? 'free' : 'pro';
    return { plan, status: deciding?.status ?? 'none', subscription: deciding, limits: this.limitsOf(plan) };
  }
}
