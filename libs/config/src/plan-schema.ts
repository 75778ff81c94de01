import { Type } from '@sinclair/typebox';

/**
 * The free plan's limits. Billing announces every paid plan's limits with
 * `billing.plan_changed`; the free plan applies to organizations billing never announced, so every
 * service that enforces a limit (and billing itself) reads these same two settings.
 */
export const freePlanConfigSchema = {
  /** Connected accounts allowed on the free plan, which applies to every organization billing announced no plan for. */
  PLAN_FREE_CONNECTED_ACCOUNTS: Type.Integer({ minimum: 0, default: 25 }),
  /** Posts (jobs) allowed per calendar month (UTC) on the free plan, which applies to every organization billing announced no plan for. */
  PLAN_FREE_POSTS_PER_MONTH: Type.Integer({ minimum: 0, default: 1000 }),
};
