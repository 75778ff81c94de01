import type { PlanLimitsType } from '@svc/contracts';

export type PlanName = 'free' | 'pro';

/** Statuses that keep the paid plan's limits: Stripe is still collecting (past_due) or nothing is owed yet. */
const PAYING = new Set(['active', 'trialing', 'past_due']);

export interface SubscriptionState {
  id: string;
  status: string;
  /** The subscribed price: the paid plan's when one of the subscription's items is for it. */
  priceId: string | null;
  stripeCreatedAt: Date;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

export interface EffectivePlan {
  plan: PlanName;
  /** The deciding subscription's status, `none` when the organization never subscribed to the paid plan. */
  status: string;
  subscription: SubscriptionState | null;
  limits: PlanLimitsType;
}

export function isPaying(status: string): boolean {
  return PAYING.has(status);
}

/**
 * The plans and what each allows. There is one paid plan, sold at STRIPE_PRICE_ID (and kept by the
 * subscribers of its earlier prices, STRIPE_LEGACY_PRICE_IDS): a subscription is to the paid plan only
 * when it subscribes one of those prices, and its status then decides between its limits and the free
 * ones. A subscription to any other price of the same Stripe account gives nothing.
 */
export class Plans {
  private readonly paidPrices: ReadonlySet<string>;

  constructor(
    private readonly limits: Record<PlanName, PlanLimitsType>,
    paidPrices: readonly string[],
  ) {
    this.paidPrices = new Set(paidPrices);
  }

  limitsOf(plan: PlanName): PlanLimitsType {
    return this.limits[plan];
  }

  isPaidPrice(priceId: string | null): boolean {
    return priceId !== null && this.paidPrices.has(priceId);
  }

  /** Of a subscription's items' prices, the one to record: the paid plan's when it is among them, else the first. */
  subscribedPrice(priceIds: readonly string[]): string | null {
    return priceIds.find((priceId) => this.paidPrices.has(priceId)) ?? priceIds[0] ?? null;
  }

  /**
   * An organization's plan from its subscriptions to the paid plan: the newest paying one wins; with
   * none paying, the newest one says why the free plan applies (canceled, unpaid...). Order of
   * arrival never matters, only the subscriptions' own state.
   */
  effective(subscriptions: readonly SubscriptionState[]): EffectivePlan {
    const newestFirst = subscriptions
      .filter((subscription) => this.isPaidPrice(subscription.priceId))
      .sort((a, b) => b.stripeCreatedAt.getTime() - a.stripeCreatedAt.getTime() || b.id.localeCompare(a.id));
    const paying = newestFirst.find((subscription) => isPaying(subscription.status));
    const deciding = paying ?? newestFirst[0] ?? null;
    const plan: PlanName = paying === undefined ? 'free' : 'pro';
    return { plan, status: deciding?.status ?? 'none', subscription: deciding, limits: this.limitsOf(plan) };
  }
}
