import { isAppError } from '@svc/errors';

export type FailureDecision =
  | { action: 'park'; reason: 'non_retryable' | 'retries_exhausted' }
  | { action: 'retry'; retryCount: number; delayMs: number };

/**
 * A client-side error (4xx) that says it is not retryable fails the same way every time, so retrying
 * only delays the operator. 429 is transient by nature and always retried.
 */
export function isPermanentFailure(error: unknown): boolean {
  return (
    isAppError(error) && !error.retryable && error.status >= 400 && error.status < 500 && error.code !== 'rate_limited'
  );
}

/** `attempt` is the one that just failed (1-based); retry n waits tier n, the last tier repeating. */
export function decideFailure(
  error: unknown,
  attempt: number,
  maxRetries: number,
  retryDelaysMs: readonly number[],
): FailureDecision {
  if (isPermanentFailure(error)) return { action: 'park', reason: 'non_retryable' };
  if (attempt > maxRetries) return { action: 'park', reason: 'retries_exhausted' };
  const delayMs = retryDelaysMs[Math.min(attempt, retryDelaysMs.length) - 1];
  if (delayMs === undefined) throw new Error('retryDelaysMs must not be empty.');
  return { action: 'retry', retryCount: attempt, delayMs };
}
