import { AppError } from '@svc/errors';

/** Billing's own failures, by code: the gateway turns them into the error body of docs/api-conventions.md, "Errors". */

/** A Stripe setting the action needs is not configured (the system runs without Stripe). */
export function notConfigured(setting: string, action: string): AppError {
  return new AppError(
    'service_unavailable',
    `Billing is not configured: ${setting} is not set, so ${action} is unavailable.`,
    {
      details: [{ message: `${setting} is not set`, setting }],
    },
  );
}

/** Stripe failed or could not be reached; nothing was charged by us, the caller may retry. */
export function stripeUnavailable(action: string, cause: unknown): AppError {
  return new AppError('service_unavailable', `Stripe could not ${action} right now; try again shortly.`, {
    retryable: true,
    cause,
  });
}
