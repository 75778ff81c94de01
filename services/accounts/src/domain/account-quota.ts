import { AppError } from '@svc/errors';
import type { PlanLimitsRepository } from '../data/plan-limits.repository.ts';
import type { Prisma } from '../generated/prisma/client.ts';

/**
 * Checks that the organization may connect one more account, inside the transaction that will store
 * it and under the organization's lock, so two connects racing for the last slot cannot both pass.
 * Reconnecting an account already stored never needs a slot (the caller only asks for new ones).
 */
export async function takeAccountSlot(
  limits: PlanLimitsRepository,
  orgId: string,
  tx: Prisma.TransactionClient,
): Promise<void> {
  const { plan, used, limit } = await limits.usage(orgId, tx);
  if (used < limit) return;
  throw new AppError(
    'plan_limit_reached',
    `The ${plan} plan allows ${limit} connected accounts and this organization has ${used}; disconnect one or upgrade the plan.`,
    {
      details: [
        {
          message: `connected_accounts limit of ${limit} reached (${used} connected)`,
          limit: 'connected_accounts',
          used,
          allowed: limit,
          plan,
        },
      ],
    },
  );
}
