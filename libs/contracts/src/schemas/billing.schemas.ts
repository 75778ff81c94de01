import { Type, type Static } from '@sinclair/typebox';

/** Shapes shared by the billing messages and the gateway's HTTP schemas. */
export const PLAN_NAMES = ['free', 'pro'] as const;
export const PlanName = Type.Unsafe<(typeof PLAN_NAMES)[number]>({ type: 'string', enum: [...PLAN_NAMES] });

/**
 * Stripe's subscription statuses, plus `none` for an organization that never subscribed. Only
 * `active`, `trialing` and `past_due` (Stripe is still retrying the payment) keep a paid plan's limits.
 */
export const SUBSCRIPTION_STATUSES = [
  'none',
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
  'paused',
] as const;
export const SubscriptionStatus = Type.Unsafe<(typeof SUBSCRIPTION_STATUSES)[number]>({
  type: 'string',
  enum: [...SUBSCRIPTION_STATUSES],
});

/** What a plan allows. Both limits are enforced where the action happens (publisher, accounts). */
export const PlanLimits = Type.Object({
  connected_accounts: Type.Integer({ minimum: 0 }),
  posts_per_month: Type.Integer({ minimum: 0 }),
});
export type PlanLimitsType = Static<typeof PlanLimits>;
