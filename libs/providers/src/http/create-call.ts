import { isProviderError } from '../errors/provider-error.ts';

/**
 * Runs the call that creates a post. Once it was sent, a timeout, a dropped connection or a 5xx
 * says nothing about whether the network created the post (lost and slow answers,
 * docs/api-conventions.md, "Sandbox faults"): such failures come back marked `uncertain`, so the
 * caller looks the post up instead of posting again. An open breaker (no call made) and 4xx answers
 * (refused) stay as they are.
 */
export async function createCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isProviderError(error) && error.kind === 'transient' && error.networkCode !== 'circuit_open')
      throw error.asUncertain();
    throw error;
  }
}
