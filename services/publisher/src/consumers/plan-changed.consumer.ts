import { billingPlanChanged, type Handlers } from '@svc/contracts';
import { AppError } from '@svc/errors';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';

export const planMessages = [billingPlanChanged] as const;

/**
 * Keeps the local replica of each organization's posts limit. Idempotent by billing's revision (a
 * redelivered or overtaken announcement is a no-op), so no inbox is needed.
 */
export function planChangedHandlers(limits: PlanLimitsRepository): Handlers<typeof planMessages> {
  return {
    'billing.plan_changed.v1': async (env) => {
      if (env.org_id === null) throw new AppError('validation_error', 'billing.plan_changed names no organization.');
      await limits.apply(env.org_id, {
        plan: env.payload.plan,
        postsPerMonth: env.payload.limits.posts_per_month,
        revision: env.payload.revision,
      });
    },
  };
}
